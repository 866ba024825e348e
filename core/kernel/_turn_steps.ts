/** Steps of a turn that read alone: the stream listener, Context.Prune, the memory recall. */
import type { Input } from "../input.ts";
import { errorMessage } from "../errors.ts";
import type { MemorySection } from "../prompt/system_prompt.ts";
import type { LlmCallListener } from "../llm/call.ts";
import type { EventBus } from "../events.ts";
import type { Logger } from "../ports.ts";
import type { ContextWindow } from "../prompt/context.ts";

/** The parts of a turn's deps these steps read (TurnDeps has them all). */
interface StepDeps {
  events: EventBus;
  logger: Logger;
  context: ContextWindow;
  recall?(input: Input, signal: AbortSignal): Promise<MemorySection[]>;
}

/** Publishes a call's stream as the turn's content and reasoning deltas. */
export function streamListener(input: Input, deps: Pick<StepDeps, "events">): LlmCallListener {
  return {
    onEvent: (_source, event) => {
      if (event.type === "text_delta") {
        deps.events.publish({ type: "content_delta", turnId: input.id, text: event.text });
      } else if (event.type === "reasoning_delta") {
        deps.events.publish({ type: "reasoning_delta", turnId: input.id, text: event.text });
      }
    },
    onReset: () => {
      deps.events.publish({ type: "content_delta", turnId: input.id, text: "", reset: true });
      deps.events.publish({ type: "reasoning_delta", turnId: input.id, text: "", reset: true });
    },
    onFallback: (from, to, error) => {
      deps.events.publish({
        type: "provider_fallback",
        turnId: input.id,
        from,
        to: to ?? "",
        reason: error.message,
      });
    },
  };
}

/** Context.Prune after the input is recorded; a memory failure is logged, never fatal to a turn. */
export async function pruneContext(
  input: Input,
  signal: AbortSignal,
  deps: StepDeps,
): Promise<void> {
  if (!deps.context.prune) return;
  try {
    await deps.context.prune(input.text, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    deps.logger.error("Context prune failed; the window keeps its events", {
      turnId: input.id,
      error: errorMessage(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
  }
}

/** Recalled memory for the prompt; a failing tier is logged and left out, never fatal. */
export async function recallMemory(
  input: Input,
  signal: AbortSignal,
  deps: StepDeps,
): Promise<MemorySection[]> {
  if (!deps.recall) return [];
  try {
    return await deps.recall(input, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    deps.logger.error("Memory recall failed; answering without it", {
      turnId: input.id,
      error: errorMessage(error),
    });
    return [];
  }
}
