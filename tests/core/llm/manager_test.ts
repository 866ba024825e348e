import assert from "node:assert/strict";
import { createProviderFactory, systemClock } from "../../../adapters/mod.ts";
import {
  AbortedError,
  AllProvidersFailedError,
  NoProviderError,
  ProviderError,
} from "../../../core/errors.ts";
import type { SourceConfig } from "../../../core/llm/sources.ts";
import { type Clock, silentLogger } from "../../../core/ports.ts";
import type { ChatRequest } from "../../../core/llm/provider.ts";
import { ProviderManager } from "../../../core/llm/manager.ts";
import type { LlmCallListener } from "../../../core/llm/call.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { fakeSource } from "../../fakes/sources.ts";
import { reply, startFakeOpenAI } from "../../fixtures/fake_llm.ts";

const hello: ChatRequest = { messages: [{ role: "user", content: "Hi" }] };

interface ManagerOptions {
  /** The manager's clock (retry delays). */
  clock?: Clock;
  /** The HTTP clients' clock (timeouts of 10 s). */
  adapterClock?: Clock;
  retryDelayMs?: number;
}

function managerOf(sources: SourceConfig[], options: ManagerOptions = {}) {
  return new ProviderManager({
    clock: options.clock ?? systemClock,
    logger: silentLogger,
    sources: () => sources,
    factory: createProviderFactory({
      clock: options.adapterClock ?? systemClock,
      logger: silentLogger,
      requestTimeoutMs: 10_000,
      idleTimeoutMs: 10_000,
    }),
    retryDelayMs: options.retryDelayMs ?? 0,
  });
}

/** A listener that writes what it hears as short lines. */
function recorder(): { lines: string[]; listener: LlmCallListener } {
  const lines: string[] = [];
  return {
    lines,
    listener: {
      onEvent: (source, event) => {
        if (event.type === "text_delta") lines.push(`${source} text ${event.text}`);
        else lines.push(`${source} ${event.type}`);
      },
      onFallback: (from, to, error) => lines.push(`fallback ${from} -> ${to} ${error.kind}`),
      onReset: (source) => lines.push(`reset ${source}`),
    },
  };
}

Deno.test("ProviderManager answers from the first source with source, model and timings", async () => {
  await using a = startFakeOpenAI();
  a.enqueue(reply.text("Hello"));
  const manager = managerOf([fakeSource("a", a)]);
  const { lines, listener } = recorder();
  const result = await manager.call(hello, { listener });
  assert.equal(result.response.text, "Hello");
  assert.equal(result.source, "a");
  assert.equal(result.model, "model-a");
  assert.ok(result.durationMs >= 0);
  assert.ok(result.firstTokenMs !== undefined && result.firstTokenMs <= result.durationMs);
  assert.deepEqual(lines.filter((l) => l.includes("text")), ["a text Hell", "a text o"]);
  assert.equal(lines.at(-1), "a done");
  assert.deepEqual(manager.health(), [{
    name: "a",
    adapter: "openai",
    model: "model-a",
    state: "ok",
    calls: 1,
    failures: 0,
    inFlight: 0,
    queued: 0,
    maxConcurrent: 8,
    vision: false,
    audio: false,
    tokensToday: 0,
    dailyTokenCap: 0,
  }]);
});

Deno.test("ProviderManager makes a non-streamed call when asked", async () => {
  await using a = startFakeOpenAI();
  a.enqueue(reply.text("Whole"));
  const manager = managerOf([fakeSource("a", a)]);
  const result = await manager.call(hello, { stream: false });
  assert.equal(result.response.text, "Whole");
  assert.equal(result.firstTokenMs, undefined);
  assert.equal(a.requests[0]?.body.stream, false);
});

Deno.test("ProviderManager falls back on 401 and skips the source until its config changes", async () => {
  await using a = startFakeOpenAI();
  await using b = startFakeOpenAI({ fallback: reply.text("from b") });
  a.enqueue(reply.status(401, "Incorrect API key"));
  const sources = [fakeSource("a", a, { apiKey: "old" }), fakeSource("b", b)];
  const manager = managerOf(sources);
  const { lines, listener } = recorder();

  assert.equal((await manager.call(hello, { listener })).source, "b");
  assert.equal(a.requests.length, 1, "no retry after 401");
  assert.ok(lines.includes("fallback a -> b auth"));
  assert.equal(manager.health()[0]?.state, "unusable");
  assert.match(manager.health()[0]?.lastError ?? "", /answered 401: Incorrect API key/);

  assert.equal((await manager.call(hello)).source, "b");
  assert.equal(a.requests.length, 1, "an unusable source is skipped");

  sources[0] = { ...sources[0]!, apiKey: "new" };
  a.enqueue(reply.text("from a"));
  const result = await manager.call(hello);
  assert.equal(result.source, "a");
  assert.equal(a.requests[1]?.headers.authorization, "Bearer new");
  assert.equal(manager.health()[0]?.state, "ok");
});

Deno.test("ProviderManager retries a 500 once, then falls back", async () => {
  await using a = startFakeOpenAI();
  await using b = startFakeOpenAI();
  a.enqueue(reply.status(500, "boom"), reply.status(502, "bad gateway"));
  b.enqueue(reply.text("from b"));
  const manager = managerOf([fakeSource("a", a), fakeSource("b", b)], { retryDelayMs: 5 });
  const { lines, listener } = recorder();
  const result = await manager.call(hello, { listener });
  assert.equal(result.source, "b");
  assert.equal(result.response.text, "from b");
  assert.equal(a.requests.length, 2);
  assert.equal(b.requests.length, 1);
  assert.deepEqual(lines.filter((l) => l.startsWith("fallback")), ["fallback a -> b server"]);
  const [health] = manager.health();
  assert.equal(health?.state, "degraded");
  assert.equal(health?.calls, 2);
  assert.equal(health?.failures, 2);
  assert.match(health?.lastError ?? "", /answered 502/);
});

Deno.test("ProviderManager keeps a source whose retry succeeds", async () => {
  await using a = startFakeOpenAI();
  await using b = startFakeOpenAI();
  a.enqueue(reply.status(503, "busy"), reply.text("second try"));
  const manager = managerOf([fakeSource("a", a), fakeSource("b", b)]);
  const result = await manager.call(hello);
  assert.equal(result.source, "a");
  assert.equal(result.response.text, "second try");
  assert.equal(b.requests.length, 0);
  assert.equal(manager.health()[0]?.state, "ok");
});

Deno.test("ProviderManager falls back on timeout after one retry", async () => {
  await using a = startFakeOpenAI();
  await using b = startFakeOpenAI();
  a.enqueue(reply.hang(), reply.hang());
  b.enqueue(reply.text("from b"));
  const adapterClock = new ManualClock();
  const manager = managerOf([fakeSource("a", a), fakeSource("b", b)], { adapterClock });
  const { lines, listener } = recorder();
  const answer = manager.call(hello, { listener });
  await a.waitForRequests(1);
  adapterClock.advance(10_000);
  await a.waitForRequests(2);
  adapterClock.advance(10_000);
  assert.equal((await answer).source, "b");
  assert.equal(a.requests.length, 2);
  assert.ok(lines.includes("fallback a -> b timeout"));
  await a.waitForAborts(2);
});

Deno.test("ProviderManager falls back on garbage after one retry", async () => {
  await using a = startFakeOpenAI();
  await using b = startFakeOpenAI();
  a.enqueue(reply.garbage(), reply.garbage());
  b.enqueue(reply.text("from b"));
  const manager = managerOf([fakeSource("a", a), fakeSource("b", b)]);
  const { lines, listener } = recorder();
  assert.equal((await manager.call(hello, { listener })).source, "b");
  assert.equal(a.requests.length, 2);
  assert.ok(lines.includes("fallback a -> b malformed"));
});

Deno.test("ProviderManager falls back without retry on bad request, and on an overflow nothing can be pruned from", async () => {
  await using a = startFakeOpenAI();
  await using b = startFakeOpenAI({ fallback: reply.text("from b") });
  a.enqueue(
    reply.status(400, "Unknown parameter"),
    reply.status(400, "prompt is too long"),
  );
  const manager = managerOf([fakeSource("a", a), fakeSource("b", b)]);
  const { lines, listener } = recorder();
  assert.equal((await manager.call(hello, { listener })).source, "b");
  assert.equal((await manager.call(hello, { listener })).source, "b");
  assert.equal(a.requests.length, 2, "the same request is not sent again");
  assert.deepEqual(lines.filter((l) => l.startsWith("fallback")), [
    "fallback a -> b bad_request",
    "fallback a -> b overflow",
  ]);
  assert.equal(manager.health()[0]?.state, "degraded", "a 4xx does not make a source unusable");
});

Deno.test("ProviderManager resets partial text when a stream fails, then the next source answers", async () => {
  await using a = startFakeOpenAI();
  await using b = startFakeOpenAI();
  a.enqueue(
    reply.text("Partial answer from a", { cut: "drop" }),
    reply.text("Partial answer again", { cut: "drop" }),
  );
  b.enqueue(reply.text("Full b"));
  const manager = managerOf([fakeSource("a", a), fakeSource("b", b)]);
  const { lines, listener } = recorder();
  const result = await manager.call(hello, { listener });
  assert.equal(result.response.text, "Full b");
  const marks = lines.filter((l) => !l.includes(" text ") && !l.endsWith("usage"));
  assert.deepEqual(marks, ["reset a", "reset a", "fallback a -> b network", "b done"]);
  const firstReset = lines.indexOf("reset a");
  assert.ok(lines.slice(0, firstReset).some((l) => l.startsWith("a text")));
  assert.deepEqual(
    lines.slice(lines.indexOf("fallback a -> b network")).filter((l) => l.includes(" text ")),
    ["b text Full", "b text  b"],
  );
});

Deno.test("ProviderManager throws AllProvidersFailedError naming each source", async () => {
  await using a = startFakeOpenAI();
  await using b = startFakeOpenAI();
  a.enqueue(reply.status(401, "Incorrect API key"));
  b.enqueue(reply.status(500, "down"), reply.status(500, "still down"));
  const manager = managerOf([fakeSource("a", a), fakeSource("b", b)]);
  const { lines, listener } = recorder();
  await assert.rejects(manager.call(hello, { listener }), (error: unknown) => {
    assert.ok(error instanceof AllProvidersFailedError);
    assert.deepEqual(error.failures.map((f) => [f.source, f.kind]), [["a", "auth"], [
      "b",
      "server",
    ]]);
    assert.match(
      error.message,
      /a: Source "a" \(127\.0\.0\.1:\d+\) answered 401: Incorrect API key/,
    );
    assert.match(error.message, /b: Source "b" \(127\.0\.0\.1:\d+\) answered 500: still down/);
    return true;
  });
  assert.deepEqual(lines.filter((l) => l.startsWith("fallback")), [
    "fallback a -> b auth",
    "fallback b -> undefined server",
  ]);
  await assert.rejects(manager.call(hello), (error: unknown) => {
    assert.ok(error instanceof AllProvidersFailedError);
    assert.equal(error.failures[0]?.kind, "auth", "the unusable source is still named");
    return true;
  });
});

Deno.test("ProviderManager turns a user abort into AbortedError without fallback or health marks", async () => {
  await using a = startFakeOpenAI();
  await using b = startFakeOpenAI();
  a.enqueue(reply.slowText("A slow answer that the user stops", { chunkDelayMs: 20 }));
  b.enqueue(reply.text("never"));
  const manager = managerOf([fakeSource("a", a), fakeSource("b", b)]);
  const controller = new AbortController();
  const { lines, listener } = recorder();
  const abortOnFirstText: LlmCallListener = {
    ...listener,
    onEvent: (name, event) => {
      listener.onEvent?.(name, event);
      if (event.type === "text_delta") controller.abort();
    },
  };
  await assert.rejects(
    manager.call(hello, { signal: controller.signal, listener: abortOnFirstText }),
    AbortedError,
  );
  assert.equal(b.requests.length, 0);
  assert.equal(lines.filter((l) => l.startsWith("fallback") || l.startsWith("reset")).length, 0);
  assert.deepEqual(manager.health().map((h) => [h.state, h.failures]), [["ok", 0], ["ok", 0]]);
  await a.waitForAborts(1);
  assert.equal(a.aborts, 1);
});

Deno.test("ProviderManager stops waiting for a retry when the user aborts", async () => {
  await using a = startFakeOpenAI();
  a.enqueue(reply.status(500, "boom"));
  const clock = new ManualClock();
  const manager = managerOf([fakeSource("a", a)], { clock, retryDelayMs: 10_000 });
  const controller = new AbortController();
  const answer = manager.call(hello, { signal: controller.signal });
  await a.waitForRequests(1);
  while (clock.pending === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  controller.abort();
  await assert.rejects(answer, AbortedError);
  assert.equal(clock.pending, 0);
  assert.equal(a.requests.length, 1);
});

Deno.test("ProviderManager picks up a config change on the next call", async () => {
  await using one = startFakeOpenAI({ fallback: reply.text("from one") });
  await using two = startFakeOpenAI({ fallback: reply.text("from two") });
  const sources: SourceConfig[] = [fakeSource("main", one)];
  const manager = managerOf(sources);
  assert.equal((await manager.call(hello)).response.text, "from one");
  sources[0] = fakeSource("main", two, { model: "model-new" });
  const result = await manager.call(hello);
  assert.equal(result.response.text, "from two");
  assert.equal(two.requests[0]?.body.model, "model-new");
  sources.unshift(fakeSource("first", one));
  assert.equal((await manager.call(hello)).source, "first");
});

Deno.test("ProviderManager without sources throws NoProviderError and reports 8192 tokens", async () => {
  const manager = managerOf([]);
  assert.equal(manager.hasSources(), false);
  assert.equal(manager.maxContextTokens(), 8192);
  assert.deepEqual(manager.health(), []);
  await assert.rejects(manager.call(hello), NoProviderError);
});

Deno.test("ProviderManager reports the window of the first usable source", async () => {
  await using a = startFakeOpenAI();
  await using b = startFakeOpenAI({ fallback: reply.text("ok") });
  a.enqueue(reply.status(403, "Forbidden"));
  const manager = managerOf([
    fakeSource("a", a, { contextWindow: 1000 }),
    fakeSource("b", b, { contextWindow: 2000 }),
  ]);
  assert.equal(manager.hasSources(), true);
  assert.equal(manager.maxContextTokens(), 1000);
  await manager.call(hello);
  assert.equal(manager.maxContextTokens(), 2000);
});

Deno.test("ProviderManager skips a source it cannot build until its config changes", async () => {
  await using b = startFakeOpenAI({ fallback: reply.text("from b") });
  const sources: SourceConfig[] = [fakeSource("a", b, { adapter: "nope" }), fakeSource("b", b)];
  const manager = managerOf(sources);
  assert.equal((await manager.call(hello)).source, "b");
  const [health] = manager.health();
  assert.equal(health?.state, "unusable");
  assert.match(health?.lastError ?? "", /unknown adapter "nope"/);
  sources[0] = { ...sources[0]!, adapter: "openai" };
  assert.equal((await manager.call(hello)).source, "a");
});

Deno.test("ProviderManager treats a provider that throws as a failed source", async () => {
  await using b = startFakeOpenAI({ fallback: reply.text("from b") });
  const real = createProviderFactory({ clock: systemClock, logger: silentLogger });
  const manager = new ProviderManager({
    clock: systemClock,
    logger: silentLogger,
    sources: () => [fakeSource("a", b, { adapter: "broken" }), fakeSource("b", b)],
    factory: (config) => {
      if (config.adapter !== "broken") return real(config);
      return {
        name: config.name,
        model: config.model,
        maxContextTokens: () => 1000,
        chat: () => Promise.reject(new Error("bug")),
        stream: () => ({
          [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error("bug")) }),
        }),
      };
    },
    retryDelayMs: 0,
  });
  const { lines, listener } = recorder();
  assert.equal((await manager.call(hello, { listener })).source, "b");
  assert.ok(lines.includes("fallback a -> b malformed"));
  assert.ok(manager.health()[0]?.lastError?.includes("bug"));
  assert.ok(new ProviderError("x", "malformed", "m").retryable);
});
