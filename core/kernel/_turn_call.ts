/**
 * A turn's LLM call and how a turn's failure becomes its reply, shared by the full turn
 * (turn.ts) and the lean upkeep call (upkeep_call.ts).
 */
import type { EventBus, ReplyStatus } from "../events.ts";
import type { ChatResponse } from "../llm/provider.ts";
import { ContextLengthError, errorMessage, HomeAgentError, isAbort } from "../errors.ts";
import type { Clock, Logger } from "../ports.ts";
import type { Input, Reply } from "../input.ts";
import type { LlmCaller, LlmCallResult, RequestPlan } from "../llm/call.ts";
import type { TokenCounter } from "../prompt/budget.ts";
import { streamListener } from "./_turn_steps.ts";
import type { TurnControl } from "./turn_control.ts";

/** What one LLM call of a turn uses (TurnDeps has it all). */
export interface CallDeps {
  clock: Clock;
  logger: Logger;
  events: EventBus;
  llm: LlmCaller;
  countTokens: TokenCounter;
  /** The cause the call is recorded under. */
  cause?: string;
  settings: { stream: boolean };
  control?: TurnControl;
}

/** Thrown inside a turn to jump to after_output with a reply already decided. */
export class ShortCircuit {
  constructor(readonly text: string, readonly status: ReplyStatus = "short_circuit") {}
}

/**
 * One provider call, streamed into content/reasoning deltas and recorded as agent_llm_chain.
 * Returns undefined when preemption cancelled it and the turn retries after resuming.
 */
export async function callLlm(
  input: Input,
  round: number,
  request: RequestPlan,
  signal: AbortSignal,
  deps: CallDeps,
): Promise<ChatResponse | undefined> {
  const startedAt = deps.clock.now();
  const call = deps.control?.beginCall(signal);
  let result: LlmCallResult;
  try {
    result = await deps.llm.call(request, {
      signal: call?.signal ?? signal,
      stream: deps.settings.stream,
      listener: streamListener(input, deps),
      ...(deps.cause !== undefined ? { cause: deps.cause } : {}),
    });
  } catch (error) {
    if (error instanceof ContextLengthError && error.inputTokens === undefined) {
      // Said in terms of the user's own message: how long it is and how much would fit.
      const inputTokens = deps.countTokens(input.text);
      const { tokens, limit } = error;
      throw new ContextLengthError({ tokens, limit, inputTokens }, { cause: error });
    }
    if (!call?.preempted() || signal.aborted) throw error;
    // The partial answer streamed so far is void: the call starts over after the interrupt.
    deps.events.publish({ type: "content_delta", turnId: input.id, text: "", reset: true });
    deps.events.publish({ type: "reasoning_delta", turnId: input.id, text: "", reset: true });
    if (deps.control?.retryCancelled) return undefined;
    throw new HomeAgentError("preempted", "Cancelled by a higher-priority input", {
      cause: error,
    });
  } finally {
    call?.end();
  }
  deps.events.publish({
    type: "agent_llm_chain",
    turnId: input.id,
    round,
    source: result.source,
    model: result.model,
    text: result.response.text,
    reasoning: result.response.reasoning,
    toolCalls: result.response.toolCalls,
    usage: result.response.usage,
    startedAt,
    durationMs: result.durationMs,
    firstTokenMs: result.firstTokenMs,
  });
  return result.response;
}

export function failureReply(
  input: Input,
  error: unknown,
  signal: AbortSignal,
  logger: Logger,
): Reply {
  const base = { inputId: input.id, channel: input.channel };
  if (error instanceof ShortCircuit) return { ...base, text: error.text, status: error.status };
  if (error instanceof HomeAgentError && error.code === "preempted") {
    return { ...base, text: error.message, status: "stopped", errorCode: error.code };
  }
  if (signal.aborted && isAbort(error) || signal.aborted) {
    return { ...base, text: "Stopped.", status: "stopped" };
  }
  const code = error instanceof HomeAgentError ? error.code : "internal";
  if (!(error instanceof HomeAgentError)) {
    logger.error("Turn failed", {
      turnId: input.id,
      error: errorMessage(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
  } else {
    logger.warn("Turn failed", { turnId: input.id, code, error: error.message });
  }
  return { ...base, text: errorMessage(error), status: "error", errorCode: code };
}
