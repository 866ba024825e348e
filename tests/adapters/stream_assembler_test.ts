import assert from "node:assert/strict";
import type { StreamEvent } from "../../core/llm/provider.ts";
import { eventsOf, StreamAssembler } from "../../adapters/_stream_assembler.ts";

const stopOrTools = (reason: string | undefined, tools: boolean) =>
  reason === "length" ? "length" : tools ? "tool_calls" : "stop";

Deno.test("StreamAssembler gathers text, reasoning, tool-call pieces, usage and finish reason", () => {
  const answer = new StreamAssembler("m", stopOrTools);
  const events: StreamEvent[] = [];
  answer.reasoning("Think", events);
  answer.text("", events);
  answer.text(null, events);
  answer.text("Hel", events);
  answer.text("lo", events);
  answer.toolCall({ index: 0, id: "call_a", name: "echo", argumentsDelta: '{"x":' }, events);
  answer.toolCall({ index: 1, name: "time" }, events);
  answer.toolCall({ index: 0, argumentsDelta: "1}" }, events);
  answer.usage(undefined, events);
  answer.usage({ promptTokens: 3, completionTokens: 2 }, events);
  assert.equal(answer.finishSent, false);
  answer.finish(null);
  assert.equal(answer.finishSent, false);
  answer.model = "m-2024";
  assert.deepEqual(answer.response(), {
    text: "Hello",
    reasoning: "Think",
    toolCalls: [
      { id: "call_a", name: "echo", arguments: '{"x":1}' },
      { id: "call_1", name: "time", arguments: "" },
    ],
    usage: { promptTokens: 3, completionTokens: 2 },
    finishReason: "tool_calls",
    model: "m-2024",
  });
  assert.deepEqual(events.map((e) => e.type), [
    "reasoning_delta",
    "text_delta",
    "text_delta",
    "tool_call_delta",
    "tool_call_delta",
    "tool_call_delta",
    "usage",
  ]);
  answer.finish("length");
  assert.equal(answer.finishSent, true);
  assert.equal(answer.response().finishReason, "length");
});

Deno.test("StreamAssembler without an event list only accumulates; eventsOf replays a response", () => {
  const answer = new StreamAssembler("m", stopOrTools);
  answer.text("Whole body");
  answer.toolCall({ index: 0, id: "c", name: "n", argumentsDelta: "{}" });
  const response = answer.response();
  assert.equal(response.reasoning, undefined);
  assert.equal(response.usage, undefined);
  const replayed = new StreamAssembler("m", stopOrTools);
  const events: StreamEvent[] = [];
  for (const event of eventsOf(response)) {
    if (event.type === "text_delta") replayed.text(event.text, events);
    if (event.type === "tool_call_delta") replayed.toolCall(event, events);
  }
  assert.deepEqual(replayed.response(), response);
  assert.equal(events.length, 2);
});
