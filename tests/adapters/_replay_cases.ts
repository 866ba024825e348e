/**
 * Table-driven tests of the Lua adapters against recorded provider traffic
 * (tests/fixtures/streams/): a case names the adapter, what the replay server answers, the
 * request, what must come out (fields of the response, or the error) and what must have gone
 * out (path, headers and body fields of the first request). A stream's deltas must add up to
 * its final response (the conformance harness's outcomeOf checks that).
 */
import assert from "node:assert/strict";
import { LuaAdapterRuntime } from "../../adapters/mod.ts";
import type { ProviderError } from "../../core/errors.ts";
import type { ChatRequest, ChatResponse, Provider, StreamEvent } from "../../core/llm/provider.ts";
import { silentLogger } from "../../core/ports.ts";
import { chatted, type Outcome, outcomeOf } from "./conformance/_harness.ts";
import {
  type Recording,
  recording,
  type ReplayRequest,
  type ReplayServer,
  startReplayServer,
} from "../fixtures/fake_replay.ts";
import { collect, sourceAt } from "./_support.ts";

/** One round of weather: a system prompt, an earlier tool call and its result, and tools. */
export const WEATHER: ChatRequest = {
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Weather in Paris?" },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_1", name: "get_weather", arguments: '{"location":"Lyon"}' }],
    },
    { role: "tool", toolCallId: "call_1", name: "get_weather", content: "18C" },
    { role: "user", content: "And Paris?" },
  ],
  tools: [{
    name: "get_weather",
    description: "Weather now",
    parameters: {
      type: "object",
      properties: { location: { type: "string" } },
      additionalProperties: false,
    },
  }],
  maxTokens: 256,
};

/** The error a case expects, and the text streamed before it. */
export interface ExpectedError {
  error: { kind: ProviderError["kind"]; message: RegExp };
  text?: string;
}

/** What the first request must have carried; `body` fields are compared one by one. */
export interface ExpectedRequest {
  path?: string;
  /** Values by lower-case name; undefined: the header must be absent. */
  headers?: Record<string, string | undefined>;
  body?: Record<string, unknown>;
}

/** What a case's `more` check gets. */
export interface ReplayRun {
  server: ReplayServer;
  provider: Provider;
  /** The stream's events (none for a chat() call). */
  events: StreamEvent[];
  /** The answer, when the call did not fail. */
  response?: ChatResponse;
  /** The body of request `i` (default the first). */
  body(i?: number): Record<string, unknown>;
}

/** One replayed call. */
export interface ReplayCase {
  /** The test's name. */
  name: string;
  /** As in `core.llm.sources.<name>.adapter` (`lua:openai` for the script of a native name). */
  adapter: string;
  model: string;
  /** Default "key-1". */
  apiKey?: string;
  /** Path of the base URL (a provider's `/v1`). */
  prefix?: string;
  /** What the server answers, one per request: fixture names or recordings. */
  replies: (string | Recording)[];
  /** Default WEATHER. */
  request?: ChatRequest;
  /** Default "stream". */
  call?: "stream" | "chat";
  /** Fields of the response, or the error. */
  expect: Partial<ChatResponse> | ExpectedError;
  sent?: ExpectedRequest;
  /** Checks beyond the table's. */
  more?: (run: ReplayRun) => void | Promise<void>;
}

const runtime = new LuaAdapterRuntime({ logger: silentLogger });

/** The provider of `adapter` for `model` at `server`, built as the daemon builds it. */
export function luaProvider(
  adapter: string,
  server: ReplayServer,
  model: string,
  apiKey = "key-1",
) {
  const source = sourceAt(server.url, { name: adapter, adapter, model, apiKey });
  return runtime.resolve(adapter)!(source, {});
}

/** Register one Deno test per case. */
export function replayCases(cases: readonly ReplayCase[]): void {
  for (const c of cases) Deno.test(c.name, () => runCase(c));
}

async function runCase(c: ReplayCase): Promise<void> {
  await using server = startReplayServer(c.prefix);
  for (const reply of c.replies) {
    server.enqueue(typeof reply === "string" ? await recording(reply) : reply);
  }
  const provider = luaProvider(c.adapter, server, c.model, c.apiKey);
  const request = c.request ?? WEATHER;
  let events: StreamEvent[] = [];
  let outcome: Outcome;
  if (c.call === "chat") {
    outcome = await chatted(() => provider.chat(request));
  } else {
    events = await collect(provider.stream(request));
    outcome = outcomeOf(events);
  }
  checkOutcome(outcome, c.expect);
  if (c.sent) checkSent(server.requests[0], c.sent);
  await c.more?.({
    server,
    provider,
    events,
    ...(outcome.kind === "answer" ? { response: outcome.response } : {}),
    body: (i = 0) => server.requests[i]?.body ?? assert.fail(`no request ${i}`),
  });
}

function checkOutcome(outcome: Outcome, expect: Partial<ChatResponse> | ExpectedError): void {
  if ("error" in expect) {
    assert.equal(outcome.kind, "error", "the call fails");
    if (outcome.kind !== "error") return;
    assert.equal(outcome.error.kind, expect.error.kind, outcome.error.message);
    assert.match(outcome.error.message, expect.error.message);
    if (expect.text !== undefined) assert.equal(outcome.text, expect.text, "text before the error");
    return;
  }
  if (outcome.kind === "error") assert.fail(outcome.error.message);
  for (const [key, value] of Object.entries(expect)) {
    assert.deepEqual(outcome.response[key as keyof ChatResponse], value, key);
  }
}

function checkSent(request: ReplayRequest | undefined, sent: ExpectedRequest): void {
  assert.ok(request, "a request was sent");
  if (sent.path !== undefined) assert.equal(request.path, sent.path);
  for (const [name, value] of Object.entries(sent.headers ?? {})) {
    assert.equal(request.headers[name], value, `header ${name}`);
  }
  for (const [key, value] of Object.entries(sent.body ?? {})) {
    assert.deepEqual(request.body[key], value, `body.${key}`);
  }
}
