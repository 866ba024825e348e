import assert from "node:assert/strict";
import { OpenAIProvider } from "../../adapters/mod.ts";
import type { ChatRequest } from "../../core/llm/provider.ts";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import {
  collect,
  ECHO_ROUND,
  ECHO_TOOLS_WIRE,
  isProviderError,
  lastOf,
  sourceAt,
  textOf,
} from "./_support.ts";

const hello: ChatRequest = { messages: [{ role: "user", content: "Hi" }] };

Deno.test("OpenAI client answers a non-streamed chat with text, usage and finish reason", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(reply.text("Hello there", { usage: { prompt: 12, completion: 3 } }));
  const provider = new OpenAIProvider({ source: sourceAt(server.url, { apiKey: "sk-test" }) });
  const response = await provider.chat({ ...hello, temperature: 0.2, maxTokens: 64 });
  assert.deepEqual(response, {
    text: "Hello there",
    toolCalls: [],
    usage: { promptTokens: 12, completionTokens: 3 },
    finishReason: "stop",
    model: "gpt-4o",
  });
  const [request] = server.requests;
  assert.equal(request?.path, "/v1/chat/completions");
  assert.equal(request?.headers.authorization, "Bearer sk-test");
  assert.deepEqual(request?.body, {
    model: "gpt-4o",
    messages: [{ role: "user", content: "Hi" }],
    temperature: 0.2,
    max_tokens: 64,
    stream: false,
  });
});

Deno.test("OpenAI client strips a trailing slash and sends no auth header without a key", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(reply.text("ok"));
  const provider = new OpenAIProvider({ source: sourceAt(server.url + "//") });
  assert.equal((await provider.chat(hello)).text, "ok");
  assert.equal(server.requests[0]?.path, "/v1/chat/completions");
  assert.equal(server.requests[0]?.headers.authorization, undefined);
});

Deno.test("OpenAI client streams text deltas, usage and exactly one done event", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(
    reply.text("Hello there, friend", { usage: { prompt: 7, completion: 4, cached: 5 } }),
  );
  const provider = new OpenAIProvider({ source: sourceAt(server.url) });
  const events = await collect(provider.stream(hello));
  assert.equal(textOf(events), "Hello there, friend");
  assert.ok(events.filter((e) => e.type === "text_delta").length > 1);
  assert.deepEqual(events.find((e) => e.type === "usage"), {
    type: "usage",
    usage: { promptTokens: 7, completionTokens: 4, cachedTokens: 5 },
  });
  assert.equal(events.filter((e) => e.type === "done" || e.type === "error").length, 1);
  const last = lastOf(events);
  assert.equal(last.type, "done");
  if (last.type === "done") {
    assert.equal(last.response.text, "Hello there, friend");
    assert.equal(last.response.finishReason, "stop");
    assert.deepEqual(last.response.usage, {
      promptTokens: 7,
      completionTokens: 4,
      cachedTokens: 5,
    });
  }
  assert.equal(server.requests[0]?.body.stream, true);
  assert.deepEqual(server.requests[0]?.body.stream_options, { include_usage: true });
});

Deno.test("OpenAI client streams tool-call deltas split across chunks", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(reply.toolCalls([
    { id: "call_a", name: "echo", arguments: { text: "a fairly long argument" } },
    { id: "call_b", name: "time", arguments: {} },
  ]));
  const provider = new OpenAIProvider({ source: sourceAt(server.url) });
  const events = await collect(provider.stream(hello));
  const deltas = events.filter((e) => e.type === "tool_call_delta");
  assert.ok(deltas.length > 4, "arguments arrive in several pieces");
  const last = lastOf(events);
  assert.equal(last.type, "done");
  if (last.type !== "done") return;
  assert.deepEqual(last.response.toolCalls, [
    { id: "call_a", name: "echo", arguments: '{"text":"a fairly long argument"}' },
    { id: "call_b", name: "time", arguments: "{}" },
  ]);
  assert.equal(last.response.finishReason, "tool_calls");
});

Deno.test("OpenAI client returns non-streamed tool calls", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(reply.toolCalls([{ id: "call_1", name: "echo", arguments: { x: 1 } }]));
  const provider = new OpenAIProvider({ source: sourceAt(server.url) });
  const response = await provider.chat(hello);
  assert.deepEqual(response.toolCalls, [{ id: "call_1", name: "echo", arguments: '{"x":1}' }]);
  assert.equal(response.finishReason, "tool_calls");
  assert.equal(response.text, "");
});

Deno.test("OpenAI client sends tools, assistant tool calls and tool results in wire format", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(reply.text("done"));
  const provider = new OpenAIProvider({ source: sourceAt(server.url) });
  await provider.chat({
    ...ECHO_ROUND,
    messages: [{ role: "system", content: "Be brief." }, ...ECHO_ROUND.messages],
  });
  const body = server.requests[0]?.body;
  assert.deepEqual(body?.messages, [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Echo x" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_1",
        type: "function",
        function: { name: "echo", arguments: '{"x":1}' },
      }],
    },
    { role: "tool", tool_call_id: "call_1", content: "1" },
  ]);
  assert.deepEqual(body?.tools, ECHO_TOOLS_WIRE);
});

Deno.test("OpenAI client maps 5xx, 429, other 4xx and context-length errors to their kinds", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(
    reply.status(500, "The server had an error"),
    reply.status(429, "Rate limit reached"),
    reply.status(404, "No such model"),
    reply.status(
      400,
      "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
    ),
  );
  const provider = new OpenAIProvider({ source: sourceAt(server.url) });
  await assert.rejects(provider.chat(hello), isProviderError("server", /answered 500: The server/));
  await assert.rejects(provider.chat(hello), isProviderError("rate_limit", /answered 429/));
  await assert.rejects(provider.chat(hello), isProviderError("bad_request", /404: No such model/));
  await assert.rejects(provider.chat(hello), isProviderError("overflow", /maximum context length/));
});

Deno.test("OpenAI client times out a stream that stalls mid-answer", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(reply.text("Some words before the stall", { cut: "hang" }));
  const provider = new OpenAIProvider({ source: sourceAt(server.url), idleTimeoutMs: 200 });
  const events = await collect(provider.stream(hello));
  assert.ok(textOf(events).length > 0);
  const last = lastOf(events);
  assert.equal(last.type, "error");
  if (last.type === "error") {
    assert.equal(last.error.kind, "timeout");
    assert.match(last.error.message, /stalled for more than 200 ms/);
  }
  await server.waitForAborts(1);
});

Deno.test("OpenAI client abort while waiting for headers rejects with cancelled", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(reply.hang());
  const provider = new OpenAIProvider({ source: sourceAt(server.url) });
  const controller = new AbortController();
  const answer = provider.chat(hello, { signal: controller.signal });
  await server.waitForRequests(1);
  controller.abort();
  await assert.rejects(answer, isProviderError("cancelled"));
  await server.waitForAborts(1);
  assert.equal(server.aborts, 1);
});

Deno.test("OpenAI client with an already aborted signal sends nothing", async () => {
  await using server = startFakeOpenAI();
  const provider = new OpenAIProvider({ source: sourceAt(server.url) });
  const last = lastOf(await collect(provider.stream(hello, { signal: AbortSignal.abort() })));
  assert.equal(last.type === "error" && last.error.kind, "cancelled");
  assert.equal(server.requests.length, 0);
});

Deno.test("OpenAI client turns a streamed call answered with plain JSON into events", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(reply.text("One piece", { wire: "json" }));
  const provider = new OpenAIProvider({ source: sourceAt(server.url) });
  const events = await collect(provider.stream(hello));
  assert.equal(textOf(events), "One piece");
  assert.equal(lastOf(events).type, "done");
});

Deno.test("OpenAI client reports its declared context window, else the model table's", () => {
  const declared = new OpenAIProvider({ source: sourceAt("http://x/v1", { contextWindow: 4000 }) });
  assert.equal(declared.maxContextTokens(), 4000);
  const known = new OpenAIProvider({ source: sourceAt("http://x/v1", { model: "gpt-4o-mini" }) });
  assert.equal(known.maxContextTokens(), 128_000);
});

Deno.test("OpenAI client reads a body that is not a byte stream (a fetch that builds its Response)", async () => {
  const body = [
    'data: {"choices":[{"index":0,"delta":{"content":"Built "},"finish_reason":null}]}',
    'data: {"choices":[{"index":0,"delta":{"content":"here"},"finish_reason":"stop"}]}',
    "data: [DONE]",
  ].map((line) => `${line}\n\n`).join("");
  const provider = new OpenAIProvider({
    source: sourceAt("http://fake.invalid/v1"),
    // A Response built from a string has a plain stream: no BYOB reader on it.
    fetch: () =>
      Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } })),
  });
  const events = await collect(provider.stream(hello));
  assert.equal(textOf(events), "Built here");
  assert.equal(lastOf(events).type, "done");
});
