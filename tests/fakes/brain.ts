/**
 * A scripted model for whole-home tests, served by a fake LLM server on 127.0.0.1: an owner
 * message matching a rule gets that rule's tool calls, then (after the tool results) its text;
 * a memory consolidation prompt ("[Memory consolidation: archive]" …) gets `consolidate`'s
 * JSON; anything else gets "OK.".
 */
import {
  type FakeRequest,
  type FakeScript,
  type FakeToolCall,
  reply,
} from "../fixtures/fake_llm.ts";

/** How the model answers messages that contain `when`. */
export interface BrainRule {
  when: string | RegExp;
  calls?: FakeToolCall[];
  /** The text answer (after the tool results when there are calls); default "OK.". */
  text?: string;
}

/** Options of scriptedBrain. */
export interface BrainOptions {
  rules?: BrainRule[];
  /** The JSON answer to a consolidation prompt of `kind` (archive, merge, review); default none. */
  consolidate?: (kind: string, prompt: string) => string;
}

/** The text of the last user message of a request. */
export function lastUserMessage(request: FakeRequest): string {
  const user = request.body.messages.filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

/** A fake-server script that answers as the rules say (see the module comment). */
export function scriptedBrain(options: BrainOptions = {}): FakeScript {
  return (request) => {
    const text = lastUserMessage(request);
    const kind = /^\[Memory consolidation: (\w+)\]/.exec(text)?.[1];
    if (kind) return reply.text(options.consolidate?.(kind, text) ?? "{}");
    const rule = options.rules?.find((r) =>
      typeof r.when === "string" ? text.includes(r.when) : r.when.test(text)
    );
    const afterTools = request.body.messages.at(-1)?.role === "tool";
    if (rule?.calls && !afterTools) return reply.toolCalls(rule.calls);
    return reply.text(rule?.text ?? "OK.");
  };
}
