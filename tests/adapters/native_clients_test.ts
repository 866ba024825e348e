/**
 * What both native clients must do alike, one table row per client: reasoning, failures
 * mapped to their kinds, timeouts on the injected clock, and cancellation that really closes
 * the connection. What differs (wire bodies, paths) stays in openai_test.ts and ollama_test.ts.
 */
import assert from "node:assert/strict";
import { type NativeClientOptions, OllamaProvider, OpenAIProvider } from "../../adapters/mod.ts";
import type { ChatRequest, Provider } from "../../core/llm/provider.ts";
import { ManualClock } from "../fakes/clock.ts";
import {
  type FakeLLMServer,
  reply,
  startFakeOllama,
  startFakeOpenAI,
} from "../fixtures/fake_llm.ts";
import {
  closedPort,
  collect,
  isProviderError,
  lastOf,
  reasoningOf,
  sourceAt,
  textOf,
} from "./_support.ts";

const hello: ChatRequest = { messages: [{ role: "user", content: "Hi" }] };

interface NativeClient {
  label: string;
  start(): FakeLLMServer;
  /** The client for a server at `baseUrl`. */
  build(baseUrl: string, options?: NativeClientOptions): Provider;
  /** A base URL on a port that refuses connections. */
  refused(): string;
}

const CLIENTS: NativeClient[] = [
  {
    label: "OpenAI client",
    start: () => startFakeOpenAI(),
    build: (baseUrl, options) => new OpenAIProvider({ ...options, source: sourceAt(baseUrl) }),
    refused: () => `http://127.0.0.1:${closedPort()}/v1`,
  },
  {
    label: "Ollama client",
    start: () => startFakeOllama(),
    build: (baseUrl, options) =>
      new OllamaProvider({
        ...options,
        source: sourceAt(baseUrl, { adapter: "ollama", model: "llama3.1:8b" }),
      }),
    refused: () => `http://127.0.0.1:${closedPort()}`,
  },
];

for (const client of CLIENTS) {
  const test = (name: string, fn: () => Promise<void>) => Deno.test(`${client.label} ${name}`, fn);

  test("reports reasoning, streamed and not", async () => {
    await using server = client.start();
    server.enqueue(
      reply.text("42", { reasoning: "Let me think step by step." }),
      reply.text("43", { reasoning: "Briefly." }),
    );
    const provider = client.build(server.url);
    const events = await collect(provider.stream(hello));
    assert.equal(reasoningOf(events), "Let me think step by step.");
    const last = lastOf(events);
    assert.equal(last.type === "done" && last.response.reasoning, "Let me think step by step.");
    assert.equal((await provider.chat(hello)).reasoning, "Briefly.");
  });

  test("maps 401 to an auth error naming source, host, status and message", async () => {
    await using server = client.start();
    server.enqueue(reply.status(401, "Incorrect API key"), reply.status(403, "Forbidden here"));
    const provider = client.build(server.url);
    const host = new URL(server.url).host;
    await assert.rejects(
      provider.chat(hello),
      isProviderError("auth", `Source "main" (${host}) answered 401: Incorrect API key`),
    );
    const last = lastOf(await collect(provider.stream(hello)));
    assert.equal(last.type, "error");
    if (last.type === "error") {
      assert.equal(last.error.kind, "auth");
      assert.equal(last.error.status, 403);
      assert.equal(last.error.retryable, false);
    }
  });

  test("maps an unparseable body or stream line to malformed", async () => {
    await using server = client.start();
    server.enqueue(reply.garbage(), reply.garbage());
    const provider = client.build(server.url);
    await assert.rejects(provider.chat(hello), isProviderError("malformed", /not valid JSON/));
    const events = await collect(provider.stream(hello));
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type === "error" && events[0]!.error.kind, "malformed");
  });

  test("maps a refused connection to network", async () => {
    const provider = client.build(client.refused());
    await assert.rejects(provider.chat(hello), isProviderError("network", /could not be reached/));
    const last = lastOf(await collect(provider.stream(hello)));
    assert.equal(last.type === "error" && last.error.kind, "network");
  });

  test("maps a connection cut mid-stream to network", async () => {
    await using server = client.start();
    server.enqueue(reply.text("A longer answer that is cut", { cut: "drop" }));
    const events = await collect(client.build(server.url).stream(hello));
    assert.ok(textOf(events).length > 0);
    const last = lastOf(events);
    assert.equal(last.type === "error" && last.error.kind, "network");
  });

  test("times out a request that gets no headers, on the injected clock", async () => {
    await using server = client.start();
    server.enqueue(reply.hang(), reply.hang());
    const clock = new ManualClock();
    const answer = client.build(server.url, { clock }).chat(hello);
    await server.waitForRequests(1);
    clock.advance(59_999);
    assert.equal(clock.pending, 1);
    clock.advance(1);
    await assert.rejects(answer, isProviderError("timeout", /sent no response within 60000 ms/));
    await server.waitForAborts(1);
    assert.equal(clock.pending, 0);
    // A stream, with a shorter configured wait.
    const events = collect(
      client.build(server.url, { clock, requestTimeoutMs: 1000 }).stream(hello),
    );
    await server.waitForRequests(2);
    clock.advance(1000);
    const last = lastOf(await events);
    assert.equal(last.type === "error" && last.error.kind, "timeout");
    await server.waitForAborts(2);
  });

  test("abort cancels and really closes the connection", async () => {
    await using server = client.start();
    server.enqueue(
      reply.slowText("a slow answer that goes on and on and on", { chunkDelayMs: 20 }),
    );
    const provider = client.build(server.url);
    const controller = new AbortController();
    const events = [];
    for await (const event of provider.stream(hello, { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text_delta") controller.abort();
    }
    const last = lastOf(events);
    assert.equal(last.type === "error" && last.error.kind, "cancelled");
    await server.waitForAborts(1);
    assert.equal(server.aborts, 1);
  });
}
