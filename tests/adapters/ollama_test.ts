import assert from "node:assert/strict";
import { OllamaProvider } from "../../adapters/mod.ts";
import type { ChatRequest } from "../../core/llm/provider.ts";
import { reply, startFakeOllama } from "../fixtures/fake_llm.ts";
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

function ollamaAt(baseUrl: string, contextWindow?: number) {
  return sourceAt(baseUrl, { adapter: "ollama", model: "llama3.1:8b", contextWindow });
}

Deno.test("Ollama client answers a non-streamed chat and asks for stream false", async () => {
  await using server = startFakeOllama();
  server.enqueue(reply.text("Hello there", { usage: { prompt: 20, completion: 6 } }));
  const provider = new OllamaProvider({ source: ollamaAt(server.url + "/", 16384) });
  const response = await provider.chat({ ...hello, temperature: 0.5, maxTokens: 100 });
  assert.deepEqual(response, {
    text: "Hello there",
    toolCalls: [],
    usage: { promptTokens: 20, completionTokens: 6 },
    finishReason: "stop",
    model: "llama3.1:8b",
  });
  const [request] = server.requests;
  assert.equal(request?.path, "/api/chat");
  assert.deepEqual(request?.body, {
    model: "llama3.1:8b",
    messages: [{ role: "user", content: "Hi" }],
    stream: false,
    options: { temperature: 0.5, num_predict: 100, num_ctx: 16384 },
  });
});

Deno.test("Ollama client streams NDJSON text deltas, usage and one done event", async () => {
  await using server = startFakeOllama();
  server.enqueue(reply.text("Streaming along nicely", { usage: { prompt: 9, completion: 4 } }));
  const provider = new OllamaProvider({ source: ollamaAt(server.url) });
  const events = await collect(provider.stream(hello));
  assert.equal(textOf(events), "Streaming along nicely");
  assert.ok(events.filter((e) => e.type === "text_delta").length > 1);
  assert.deepEqual(events.find((e) => e.type === "usage"), {
    type: "usage",
    usage: { promptTokens: 9, completionTokens: 4 },
  });
  const last = lastOf(events);
  assert.equal(last.type, "done");
  assert.equal(last.type === "done" && last.response.text, "Streaming along nicely");
  assert.equal(server.requests[0]?.body.stream, true);
});

Deno.test("Ollama client turns object arguments into JSON text with generated ids", async () => {
  await using server = startFakeOllama();
  server.enqueue(
    reply.toolCalls([{ name: "echo", arguments: { x: 1 } }, { name: "time", arguments: {} }]),
    reply.toolCalls([{ name: "echo", arguments: { y: "two" } }]),
  );
  const provider = new OllamaProvider({ source: ollamaAt(server.url) });
  const last = lastOf(await collect(provider.stream(hello)));
  assert.equal(last.type, "done");
  if (last.type !== "done") return;
  const calls = last.response.toolCalls;
  assert.deepEqual(calls.map((c) => [c.name, c.arguments]), [["echo", '{"x":1}'], ["time", "{}"]]);
  assert.ok(calls.every((c) => c.id.length > 0));
  assert.notEqual(calls[0]?.id, calls[1]?.id);
  assert.equal(last.response.finishReason, "tool_calls");
  const response = await provider.chat(hello);
  assert.deepEqual(response.toolCalls.map((c) => c.arguments), ['{"y":"two"}']);
  assert.equal(response.finishReason, "tool_calls");
});

Deno.test("Ollama client sends tools and tool results in the Ollama wire format", async () => {
  await using server = startFakeOllama();
  server.enqueue(reply.text("done"));
  const provider = new OllamaProvider({ source: ollamaAt(server.url) });
  await provider.chat(ECHO_ROUND);
  const body = server.requests[0]?.body;
  assert.deepEqual(body?.messages, [
    { role: "user", content: "Echo x" },
    {
      role: "assistant",
      content: "",
      tool_calls: [{ function: { name: "echo", arguments: { x: 1 } } }],
    },
    { role: "tool", content: "1", tool_name: "echo" },
  ]);
  assert.deepEqual(body?.tools, ECHO_TOOLS_WIRE);
  assert.equal(body?.options, undefined);
});

Deno.test("Ollama client maps error statuses with their message", async () => {
  await using server = startFakeOllama();
  server.enqueue(
    reply.status(401, "unauthorized"),
    reply.status(500, "model crashed"),
    reply.status(404, 'model "nope" not found, try pulling it first'),
  );
  const provider = new OllamaProvider({ source: ollamaAt(server.url) });
  const host = new URL(server.url).host;
  await assert.rejects(
    provider.chat(hello),
    isProviderError("auth", `Source "main" (${host}) answered 401: unauthorized`),
  );
  const last = lastOf(await collect(provider.stream(hello)));
  assert.equal(last.type === "error" && last.error.kind, "server");
  await assert.rejects(provider.chat(hello), isProviderError("bad_request", /not found/));
});
