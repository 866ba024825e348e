/** Helpers shared by the adapter tests. */
import assert from "node:assert/strict";
import { ProviderError } from "../../core/errors.ts";
import type { SourceConfig } from "../../core/llm/sources.ts";
import type { ChatRequest, ChatResponse, StreamEvent } from "../../core/llm/provider.ts";

/** A request after one tool round: the call of `echo`, its result and the tool itself. */
export const ECHO_ROUND: ChatRequest = {
  messages: [
    { role: "user", content: "Echo x" },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_1", name: "echo", arguments: '{"x":1}' }],
    },
    { role: "tool", toolCallId: "call_1", name: "echo", content: "1" },
  ],
  tools: [{ name: "echo", description: "Echo x", parameters: { type: "object" } }],
};

/** The tools of ECHO_ROUND as OpenAI and Ollama take them. */
export const ECHO_TOOLS_WIRE = [{
  type: "function",
  function: { name: "echo", description: "Echo x", parameters: { type: "object" } },
}];

/** A source named "main" pointing at `baseUrl`. */
export function sourceAt(baseUrl: string, overrides: Partial<SourceConfig> = {}): SourceConfig {
  return { name: "main", adapter: "openai", baseUrl, model: "gpt-4o", enabled: true, ...overrides };
}

/** Every event of a stream, in order. */
export async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The text of the text deltas. */
export function textOf(events: StreamEvent[]): string {
  return events.map((e) => e.type === "text_delta" ? e.text : "").join("");
}

/** The text of the reasoning deltas. */
export function reasoningOf(events: StreamEvent[]): string {
  return events.map((e) => e.type === "reasoning_delta" ? e.text : "").join("");
}

/** The last event, which must be `done` or `error`. */
export function lastOf(events: StreamEvent[]): StreamEvent {
  const last = events.at(-1);
  if (!last) throw new Error("The stream produced no event");
  return last;
}

/** The response of a stream that ended with its one `done` event (fails the test otherwise). */
export function doneOf(events: StreamEvent[]): ChatResponse {
  const last = lastOf(events);
  assert.equal(last.type, "done", last.type === "error" ? last.error.message : "");
  assert.equal(events.filter((e) => e.type === "done" || e.type === "error").length, 1);
  return last.type === "done" ? last.response : assert.fail("no response");
}

/** An assert.rejects check: a ProviderError of `kind`, its message equal to or matching `message`. */
export function isProviderError(kind: ProviderError["kind"], message?: RegExp | string) {
  return (error: unknown) => {
    assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${error}`);
    assert.equal(error.kind, kind);
    if (typeof message === "string") assert.equal(error.message, message);
    else if (message) assert.match(error.message, message);
    return true;
  };
}

/** A port on 127.0.0.1 that refuses connections (it was free a moment ago). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
