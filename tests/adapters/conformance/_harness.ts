/**
 * The wire conformance harness: serves every fixture of a client's families under every
 * framing (_framings.ts) to the client's real HTTP path and asserts that each case yields
 * the fixture's expected result — the same text, reasoning, tool calls, finish reason, usage
 * and model, or the same typed error — from the stream's deltas and from its final response.
 */
import assert from "node:assert/strict";
import {
  type ChatRequest,
  type ChatResponse,
  ProviderError,
  type StreamEvent,
  ToolCallAccumulator,
  type Usage,
} from "../../../core/mod.ts";
import { client, type ConformanceClient } from "./_clients.ts";
import { cut, type Framing, framingName, framings } from "./_framings.ts";
import { type FramingServer, startFramingServer } from "./_wire_server.ts";
import { type Expected, type ExpectedCall, loadFamily, type WireFixture } from "./_fixtures.ts";

/** Random splits per fixture (the issue asks for at least 200 fixed seeds). */
export const SEEDS = 200;
/** A JSON fixture also answers chat() under every fixed framing and every 5th seed. */
const CHAT_EVERY = 5;

/** The request every case sends: the suite tests answers, not request bodies (see lua/adapters_test.ts). */
export const REQUEST: ChatRequest = {
  messages: [{ role: "user", content: "Weather and time in Paris?" }],
};

/** A 1×1 PNG, base64, as the vision fixtures' requests carry it. */
export const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** What a vision case sends: a question and one image (fixtures with a `.request.json`). */
export const VISION_REQUEST: ChatRequest = {
  messages: [{
    role: "user",
    content: "What is in this image?",
    images: [{ mime: "image/png", data: PIXEL_PNG }],
  }],
};

/** What one call produced, reduced to what the expected result names. */
export type Outcome =
  | { kind: "answer"; response: ChatResponse }
  /** `text` and `reasoning`: what a stream delivered before its error (none for chat()). */
  | { kind: "error"; error: ProviderError; text?: string; reasoning?: string };

/** Register one Deno test per fixture of the client `adapter`. */
export function conformance(adapter: string): void {
  const target = client(adapter);
  for (const family of target.families) {
    for (const fixture of loadFamily(family)) {
      Deno.test(`Wire conformance: ${adapter} reads ${family}/${fixture.name} under every framing`, () =>
        runFixture(target, fixture));
    }
  }
}

async function runFixture(target: ConformanceClient, fixture: WireFixture): Promise<void> {
  await using server = startFramingServer();
  const provider = target.build(server.url);
  const request = fixture.request ? VISION_REQUEST : REQUEST;
  for (const framing of framings(SEEDS)) {
    const where = `${target.adapter} ${fixture.family}/${fixture.name} ${framingName(framing)}`;
    serve(server, fixture, framing);
    check(await streamed(provider.stream(request)), fixture.expected, where);
    if (
      fixture.json && (framing.split.kind !== "random" || framing.split.seed % CHAT_EVERY === 0)
    ) {
      // A JSON body answers a non-streamed call the same way (fewer seeds: the same reader).
      serve(server, fixture, framing);
      check(await chatted(() => provider.chat(request)), fixture.expected, `${where} chat()`);
    }
  }
  if (fixture.request) {
    const { key, value } = fixture.request;
    for (const sent of server.requests) {
      const body = JSON.parse(sent.body) as Record<string, unknown>;
      assert.deepEqual(
        body[key],
        value,
        `${target.adapter} ${fixture.name}: the request's "${key}"`,
      );
    }
  }
  const paths = new Set(server.requests.map((r) => r.path));
  const want = fixture.json ? [target.streamPath, target.chatPath] : [target.streamPath];
  assert.deepEqual([...paths].sort(), [...new Set(want)].sort(), `${target.adapter} paths`);
}

function serve(server: FramingServer, fixture: WireFixture, framing: Framing): void {
  server.enqueue({
    status: fixture.status,
    contentType: fixture.contentType,
    pieces: cut(fixture.body, fixture.eventEnds, framing.split),
    transfer: framing.transfer,
  });
}

/** Run a stream to its end; the deltas must agree with the final response. */
export async function streamed(stream: AsyncIterable<StreamEvent>): Promise<Outcome> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return outcomeOf(events);
}

/** The outcome of a whole stream's events; the deltas must agree with the final response. */
export function outcomeOf(events: StreamEvent[]): Outcome {
  const ends = events.filter((e) => e.type === "done" || e.type === "error");
  assert.equal(ends.length, 1, `one done or error event, got ${ends.length}`);
  const last = events.at(-1)!;
  assert.ok(last.type === "done" || last.type === "error", "the stream ends with done or error");
  let text = "";
  let reasoning = "";
  let usage: Usage | undefined;
  const tools = new ToolCallAccumulator();
  for (const event of events) {
    if (event.type === "text_delta") text += event.text;
    if (event.type === "reasoning_delta") reasoning += event.text;
    if (event.type === "tool_call_delta") tools.add(event);
    if (event.type === "usage") usage = event.usage;
  }
  if (last.type === "error") return { kind: "error", error: last.error, text, reasoning };
  const response = last.response;
  assert.equal(text, response.text, "text deltas add up to the response text");
  assert.equal(reasoning, response.reasoning ?? "", "reasoning deltas add up to the reasoning");
  assert.deepEqual(tools.calls(), response.toolCalls, "tool-call deltas add up to the calls");
  assert.deepEqual(usage, response.usage, "the last usage event is the response's usage");
  return { kind: "answer", response };
}

/** The outcome of a non-streamed call. */
export async function chatted(call: () => Promise<ChatResponse>): Promise<Outcome> {
  try {
    return { kind: "answer", response: await call() };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    return { kind: "error", error };
  }
}

/** Assert that `outcome` is the `expected` result; `where` names the case. */
export function check(outcome: Outcome, expected: Expected, where: string): void {
  if ("error" in expected) {
    const got = outcome.kind === "error"
      ? outcome.error
      : `an answer: ${JSON.stringify(outcome.response)}`;
    assert.ok(got instanceof ProviderError, `${where}: expected an error, got ${got}`);
    assert.equal(got.kind, expected.error.kind, `${where}: error kind (${got.message})`);
    assert.ok(
      got.message.includes(expected.error.message),
      `${where}: error message ${JSON.stringify(got.message)} lacks ${
        JSON.stringify(expected.error.message)
      }`,
    );
    if (expected.error.status !== undefined) assert.equal(got.status, expected.error.status);
    if (outcome.kind === "error" && outcome.text !== undefined) {
      assert.equal(outcome.text, expected.text ?? "", `${where}: text before the error`);
      assert.equal(outcome.reasoning, expected.reasoning ?? "", `${where}: reasoning before it`);
    }
    return;
  }
  if (outcome.kind === "error") assert.fail(`${where}: ${outcome.error.message}`);
  const response = outcome.response;
  assert.equal(response.text, expected.text, `${where}: text`);
  assert.equal(response.reasoning, expected.reasoning, `${where}: reasoning`);
  checkCalls(response, expected.toolCalls, where);
  assert.equal(response.finishReason, expected.finishReason, `${where}: finish reason`);
  assert.deepEqual(response.usage, expected.usage, `${where}: usage`);
  assert.equal(response.model, expected.model, `${where}: model`);
}

function checkCalls(response: ChatResponse, expected: ExpectedCall[], where: string): void {
  const calls = response.toolCalls;
  assert.equal(calls.length, expected.length, `${where}: ${JSON.stringify(calls)}`);
  assert.equal(new Set(calls.map((c) => c.id)).size, calls.length, `${where}: unique call ids`);
  calls.forEach((call, i) => {
    const want = expected[i]!;
    const at = `${where}: tool call ${i}`;
    if (want.id === "*") assert.ok(call.id.length > 0, `${at} has an id`);
    else assert.equal(call.id, want.id, `${at} id`);
    assert.equal(call.name, want.name, `${at} name`);
    if (typeof want.arguments === "string") assert.equal(call.arguments, want.arguments, at);
    else assert.deepEqual(JSON.parse(call.arguments), want.arguments, `${at} arguments`);
  });
}
