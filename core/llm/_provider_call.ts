/**
 * One HTTP call of one provider for ProviderManager, streamed or not, as data: the answer or the
 * failure, and what the call consumed (reported usage, the output that arrived), so usage is
 * recorded for failed and stopped calls too.
 */
import { errorMessage, ProviderError } from "../errors.ts";
import type { Clock, Logger } from "../ports.ts";
import type { ChatRequest, ChatResponse, Provider, StreamEvent, Usage } from "./provider.ts";
import type { CallSpend } from "./_source_limits.ts";
import type { LlmCallListener } from "./call.ts";

/** The outcome of one call. `partial`: deltas were delivered before it failed. */
export type Attempt =
  | { ok: true; response: ChatResponse; firstTokenMs?: number; spend: CallSpend }
  | { ok: false; error: ProviderError; partial?: boolean; spend: CallSpend };

/** Observes a streamed call: the events part of the call contract's listener. */
export type CallListener = Pick<LlmCallListener, "onEvent">;

/** Options of streamOnce. */
export interface StreamOnceOptions {
  signal?: AbortSignal;
  listener?: CallListener;
  clock: Clock;
  logger: Logger;
  /** `clock.monotonic()` when the whole call began; first-token times count from it. */
  started: number;
}

/**
 * Failures after which the server had the prompt though no output arrived: a stop or a timeout
 * while it worked, or a 200 answer that could not be read. Their prompt counts as spent.
 */
const PROMPT_SPENT: ReadonlySet<string> = new Set(["cancelled", "timeout", "malformed"]);

/** One non-streamed call. Never throws. */
export async function chatOnce(
  provider: Provider,
  request: ChatRequest,
  signal?: AbortSignal,
): Promise<Attempt> {
  try {
    const response = await provider.chat(request, { signal });
    return { ok: true, response, spend: spendOf(response) };
  } catch (error) {
    const failure = asFailure(provider.name, error);
    return { ok: false, error: failure, spend: { output: "", promptSent: spentOn(failure) } };
  }
}

/** One streamed call, its events passed to the listener as they come. Never throws. */
export async function streamOnce(
  provider: Provider,
  request: ChatRequest,
  options: StreamOnceOptions,
): Promise<Attempt> {
  const { listener, signal, clock, logger } = options;
  let firstTokenMs: number | undefined;
  let failure: ProviderError | undefined;
  let response: ChatResponse | undefined;
  let usage: Usage | undefined;
  const output: string[] = [];
  try {
    for await (const event of provider.stream(request, { signal })) {
      if (event.type === "error") {
        failure = event.error;
        break;
      }
      if (event.type === "done") response = event.response;
      if (event.type === "usage") usage = event.usage;
      const piece = outputOf(event);
      if (piece !== undefined) {
        output.push(piece);
        firstTokenMs ??= clock.monotonic() - options.started;
      }
      notify(logger, () => listener?.onEvent?.(provider.name, event));
      if (response) break;
    }
  } catch (error) {
    failure = asFailure(provider.name, error);
  }
  if (response) return { ok: true, response, firstTokenMs, spend: spendOf(response) };
  failure ??= new ProviderError(
    provider.name,
    "malformed",
    `Source "${provider.name}" ended its stream without an answer`,
  );
  const text = output.join("");
  const spend: CallSpend = {
    ...(usage ? { usage } : {}),
    output: text,
    promptSent: text !== "" || usage !== undefined || spentOn(failure),
  };
  return { ok: false, error: failure, partial: firstTokenMs !== undefined, spend };
}

/** What a complete answer consumed. */
function spendOf(response: ChatResponse): CallSpend {
  const calls = response.toolCalls.map((c) => c.name + c.arguments).join("");
  return {
    ...(response.usage ? { usage: response.usage } : {}),
    output: (response.reasoning ?? "") + response.text + calls,
    promptSent: true,
  };
}

/** The generated text an event carries (text, reasoning, tool names and arguments). */
function outputOf(event: StreamEvent): string | undefined {
  if (event.type === "text_delta" || event.type === "reasoning_delta") return event.text;
  if (event.type === "tool_call_delta") return (event.name ?? "") + (event.argumentsDelta ?? "");
  return undefined;
}

function spentOn(failure: ProviderError): boolean {
  return PROMPT_SPENT.has(failure.kind);
}

/** A provider that broke its contract by throwing still fails as data, not as a crash. */
export function asFailure(source: string, error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  return new ProviderError(
    source,
    "malformed",
    `Source "${source}" failed: ${errorMessage(error)}`,
    {
      cause: error,
    },
  );
}

/** Run a listener callback; what it throws is logged, never passed on. */
export function notify(logger: Logger, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    logger.error("LLM call listener threw", { error: errorMessage(error) });
  }
}
