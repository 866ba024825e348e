/**
 * The lean call of a consolidation input (the memory loops' archive, merge and review asks):
 * one short instruction and the loop's own prompt, which holds the data it decides on and the
 * JSON it wants back. No persona, memory, timeline, tools or stages: a JSON decision needs none
 * of them, and each would cost thousands of tokens per ask (issue 14).
 *
 * It still runs as a scheduled input of the agent, so the owner's work preempts it: a
 * preempted call is not retried (the loop asks again on its next run).
 */
import type { Input, Reply } from "../input.ts";
import type { ChatRequest } from "../llm/provider.ts";
import { HomeAgentError } from "../errors.ts";
import { type CallDeps, callLlm, failureReply, ShortCircuit } from "./_turn_call.ts";

/** The system message of every upkeep call. */
export const UPKEEP_INSTRUCTION = "You maintain the memory of a personal assistant. Decide " +
  "only what the message asks, from the data it gives. Answer with one JSON object in the " +
  "format it shows, and nothing else.";

/** The request of an upkeep call for `prompt`: the instruction and the prompt, no tools. */
export function upkeepRequest(prompt: string): ChatRequest {
  return {
    messages: [
      { role: "system", content: UPKEEP_INSTRUCTION },
      { role: "user", content: prompt },
    ],
  };
}

/** Answer a consolidation input with one lean LLM call. Never throws (as runTurn). */
export async function runUpkeepCall(
  input: Input,
  signal: AbortSignal,
  deps: CallDeps,
): Promise<Reply> {
  const base = { inputId: input.id, channel: input.channel };
  try {
    if (deps.control?.stopped) throw new ShortCircuit("Stopped before it ran.", "stopped");
    // Notes of interrupts that ran meanwhile are the owner's business, not this decision's.
    await deps.control?.checkpoint(signal);
    const response = await callLlm(input, 1, upkeepRequest(input.text), signal, deps);
    if (!response) {
      throw new HomeAgentError("preempted", "Cancelled by a higher-priority input");
    }
    return { ...base, text: response.text, status: "ok" };
  } catch (error) {
    return failureReply(input, error, signal, deps.logger);
  }
}
