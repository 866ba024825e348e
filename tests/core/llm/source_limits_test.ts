import assert from "node:assert/strict";
import { createProviderFactory, systemClock } from "../../../adapters/mod.ts";
import {
  AllProvidersFailedError,
  ContextLengthError,
  UsageCapError,
} from "../../../core/errors.ts";
import type { SourceConfig } from "../../../core/llm/sources.ts";
import { silentLogger } from "../../../core/ports.ts";
import type { ChatRequest } from "../../../core/llm/provider.ts";
import { ProviderManager, pruneRequest, requestTokens } from "../../../core/llm/manager.ts";
import type { LlmCallListener } from "../../../core/llm/call.ts";
import { dayOf } from "../../../core/llm/usage.ts";
import { MemoryUsageLedger } from "../../fakes/usage_ledger.ts";
import { estimateTokens } from "../../../core/prompt/estimate.ts";
import { reply, startFakeOpenAI } from "../../fixtures/fake_llm.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { fakeSource } from "../../fakes/sources.ts";

const hello: ChatRequest = { messages: [{ role: "user", content: "Hi" }] };

function managerOf(sources: SourceConfig[], usage = new MemoryUsageLedger()) {
  const manager = new ProviderManager({
    clock: systemClock,
    logger: silentLogger,
    sources: () => sources,
    factory: createProviderFactory({ clock: systemClock, logger: silentLogger }),
    retryDelayMs: 0,
    usage,
  });
  return { manager, usage };
}

/** A prompt with a long conversation timeline, as buildSystemPrompt writes it. */
function bigRequest(lines: number): ChatRequest {
  const timeline = Array.from(
    { length: lines },
    (_, i) => `[2026-01-01 10:${i % 60}] owner: ${"word ".repeat(30)}${i}`,
  );
  return {
    messages: [
      {
        role: "system",
        content: `You are helpful.\n\n[Conversation so far]\n${timeline.join("\n")}`,
      },
      { role: "user", content: "What did I say last?" },
    ],
  };
}

Deno.test("ProviderManager keeps at most max_concurrent calls in flight per source", async () => {
  await using a = startFakeOpenAI({ fallback: reply.slowText("ok ok ok", { chunkDelayMs: 15 }) });
  const { manager } = managerOf([fakeSource("a", a, { maxConcurrent: 2 })]);
  let peak = 0;
  const listener: LlmCallListener = {
    onEvent: () => (peak = Math.max(peak, manager.health()[0]!.inFlight)),
  };
  const calls = Array.from({ length: 5 }, () => manager.call(hello, { listener }));
  await a.waitForRequests(2);
  assert.equal(manager.health()[0]!.queued, 3);
  await Promise.all(calls);
  assert.equal(peak, 2);
  assert.equal(a.requests.length, 5);
  assert.equal(manager.health()[0]!.inFlight, 0);
});

Deno.test("ProviderManager records usage per source per day and skips a source past its daily cap", async () => {
  await using a = startFakeOpenAI({
    fallback: reply.text("a", { usage: { prompt: 60, completion: 50, cached: 20 } }),
  });
  await using b = startFakeOpenAI({ fallback: reply.text("b") });
  const sources = [fakeSource("a", a, { dailyTokenCap: 200 }), fakeSource("b", b)];
  const { manager, usage } = managerOf(sources);
  assert.equal((await manager.call(hello)).source, "a");
  assert.equal((await manager.call(hello)).source, "a");
  const today = dayOf(Date.now());
  assert.deepEqual(usage.totals("a", today), {
    source: "a",
    day: today,
    promptTokens: 120,
    completionTokens: 100,
    cachedTokens: 40,
    estimatedTokens: 0,
    calls: 2,
  });
  const lines: string[] = [];
  const result = await manager.call(hello, {
    listener: { onFallback: (from, to, error) => lines.push(`${from}->${to}: ${error.message}`) },
  });
  assert.equal(result.source, "b");
  assert.equal(a.requests.length, 2, "a capped source is not called");
  assert.equal(manager.health()[0]!.tokensToday, 220);
  sources.pop();
  await assert.rejects(manager.call(hello), (error: unknown) => {
    assert.ok(error instanceof AllProvidersFailedError);
    assert.match(
      error.message,
      /a: Source "a" reached its daily token cap \(220 of 200 tokens today\)/,
    );
    return true;
  });
});

Deno.test("ProviderManager prunes the context and retries once on overflow before falling back", async () => {
  await using a = startFakeOpenAI();
  a.enqueue(
    reply.status(
      400,
      "This model's maximum context length is 8192 tokens (context_length_exceeded)",
    ),
    (request) => reply.text(`fits with ${request.body.messages.length} messages`),
  );
  const { manager } = managerOf([fakeSource("a", a, { contextWindow: 8192 })]);
  const pruned: string[] = [];
  const request = bigRequest(120);
  const before = requestTokens(request, estimateTokens);
  const result = await manager.call(request, {
    listener: {
      onPrune: (src, reason, from, to) => pruned.push(`${src} ${reason} ${from > to}`),
      onFallback: () => pruned.push("fallback"),
    },
  });
  assert.equal(result.response.text, "fits with 2 messages");
  assert.deepEqual(pruned, ["a overflow true"]);
  const sent = a.requests[1]!.body.messages[0]!.content as string;
  assert.ok(estimateTokens(sent) < before * 0.8, "the retry is smaller");
  assert.match(sent, /owner: .* 119$/, "the newest timeline line is kept");
  assert.doesNotMatch(sent, /owner: .* 0\n/, "the oldest is dropped");
});

Deno.test("ProviderManager's overflow guard prunes a request over the window before sending", async () => {
  await using a = startFakeOpenAI({ fallback: reply.text("ok") });
  const { manager } = managerOf([fakeSource("a", a, { contextWindow: 1000 })]);
  const reasons: string[] = [];
  const listener: LlmCallListener = { onPrune: (_s, reason) => reasons.push(reason) };
  await manager.call(bigRequest(20), { listener }); // 913 tokens: within the window
  await manager.call(bigRequest(24), { listener }); // 1092 tokens: pruned first
  assert.deepEqual(reasons, ["guard"]);
  const sent = a.requests[1]!.body.messages[0]!.content as string;
  assert.ok(estimateTokens(sent) <= 800);
  assert.match(sent, /^You are helpful\./, "the persona is kept whole");
});

Deno.test("pruneRequest cuts the oldest tool results when the timeline is not enough", () => {
  const request: ChatRequest = {
    messages: [
      { role: "system", content: "Short prompt." },
      { role: "user", content: "Read both files" },
      { role: "assistant", content: "", toolCalls: [{ id: "1", name: "read", arguments: "{}" }] },
      { role: "tool", toolCallId: "1", name: "read", content: "x ".repeat(4000) },
      { role: "tool", toolCallId: "2", name: "read", content: "y".repeat(400) },
    ],
  };
  const pruned = pruneRequest(request, {
    source: "a",
    reason: "overflow",
    window: 1000,
    targetTokens: 800,
    count: estimateTokens,
  });
  assert.ok(requestTokens(pruned, estimateTokens) <= 830);
  const [, , , first, second] = pruned.messages;
  assert.match(first!.content, /characters cut to fit the context window/);
  assert.equal(second!.content, "y".repeat(400));
  assert.equal(request.messages[3]!.content.length, 8000, "the input is not modified");
});

/** A request of about 250 tokens, so each call's prompt is worth counting. */
const longHello: ChatRequest = {
  messages: [{ role: "user", content: `Tell me a story. ${"Once upon a time ".repeat(58)}` }],
};

Deno.test("ProviderManager records the tokens of stopped and cut calls, so the daily cap holds", async () => {
  await using a = startFakeOpenAI();
  a.enqueue(
    reply.text("The story begins in a small town by the sea.", { cut: "hang" }),
    reply.text("A second story that breaks off.", { cut: "drop" }),
    reply.text("Its retry breaks off too.", { cut: "drop" }),
    reply.text("never sent"),
  );
  const sources = [fakeSource("a", a, { dailyTokenCap: 600 })];
  const { manager, usage } = managerOf(sources);
  const prompt = requestTokens(longHello, estimateTokens);
  const stop = new AbortController();
  const received: string[] = [];
  const stopOnText: LlmCallListener = {
    onEvent: (_source, event) => {
      if (event.type !== "text_delta") return;
      received.push(event.text);
      stop.abort();
    },
  };
  await assert.rejects(manager.call(longHello, { signal: stop.signal, listener: stopOnText }));
  const today = dayOf(Date.now());
  const stopped = usage.totals("a", today);
  assert.equal(stopped.promptTokens, prompt, "a stopped call counts the prompt it sent");
  assert.equal(stopped.completionTokens, estimateTokens(received.join("")));
  assert.equal(stopped.estimatedTokens, stopped.promptTokens + stopped.completionTokens);
  await assert.rejects(manager.call(longHello), AllProvidersFailedError); // cut, retried, cut
  const totals = usage.totals("a", today);
  assert.equal(totals.calls, 3);
  assert.ok(totals.promptTokens === 3 * prompt && totals.completionTokens > 0);
  assert.ok(manager.health()[0]!.tokensToday >= 600, `${manager.health()[0]!.tokensToday}`);
  await assert.rejects(manager.call(longHello), /reached its daily token cap/);
  assert.equal(a.requests.length, 3, "the capped source is not called again");
});

Deno.test("ProviderManager counts the prompt of a timed-out call and nothing for a refused one", async () => {
  await using a = startFakeOpenAI();
  a.enqueue(reply.hang(), reply.status(500, "down"), reply.status(503, "still down"));
  const adapterClock = new ManualClock();
  const usage = new MemoryUsageLedger();
  const manager = new ProviderManager({
    clock: systemClock,
    logger: silentLogger,
    sources: () => [fakeSource("a", a)],
    factory: createProviderFactory({
      clock: adapterClock,
      logger: silentLogger,
      requestTimeoutMs: 10_000,
    }),
    retryDelayMs: 0,
    usage,
  });
  const call = manager.call(longHello);
  await a.waitForRequests(1);
  adapterClock.advance(10_000);
  await assert.rejects(call, AllProvidersFailedError); // timed out, then a 500 on the retry
  await assert.rejects(manager.call(longHello), AllProvidersFailedError); // a 503: nothing spent
  const totals = usage.totals("a", dayOf(Date.now()));
  const prompt = requestTokens(longHello, estimateTokens);
  assert.deepEqual([totals.calls, totals.promptTokens, totals.completionTokens], [1, prompt, 0]);
  await a.waitForAborts(1);
});

Deno.test("ProviderManager never cuts the persona or the user's text: what cannot fit is refused unsent", async () => {
  await using a = startFakeOpenAI({ fallback: reply.text("never") });
  const { manager } = managerOf([fakeSource("a", a, { contextWindow: 8192 })]);
  const persona = `You are helpful. ${"Rule. ".repeat(6000)}`; // ~9,000 tokens, no timeline
  const request: ChatRequest = {
    messages: [{ role: "system", content: persona }, { role: "user", content: "Hi" }],
  };
  const pruned = pruneRequest(request, {
    source: "a",
    reason: "guard",
    window: 8192,
    targetTokens: 6000,
    count: estimateTokens,
  });
  assert.equal(pruned.messages[0]!.content, persona, "pruneRequest leaves the persona whole");
  await assert.rejects(manager.call(request), (error: unknown) => {
    assert.ok(error instanceof ContextLengthError);
    assert.equal(error.code, "context_length_exceeded");
    assert.deepEqual([error.tokens, error.limit], [requestTokens(request, estimateTokens), 8192]);
    return true;
  });
  assert.equal(a.requests.length, 0);
});

Deno.test("ProviderManager records each call under its cause, priced, and refuses a cause past its cap", async () => {
  await using a = startFakeOpenAI({
    fallback: reply.text("a", { usage: { prompt: 1_000, completion: 500 } }),
  });
  const usage = new MemoryUsageLedger();
  const caps: Record<string, number> = { heartbeat: 2_000 };
  const manager = new ProviderManager({
    clock: systemClock,
    logger: silentLogger,
    sources: () => [fakeSource("a", a, { priceInput: 2.5, priceOutput: 10 })],
    factory: createProviderFactory({ clock: systemClock, logger: silentLogger }),
    retryDelayMs: 0,
    usage,
    causeCap: (cause) => caps[cause] ?? 0,
  });
  await manager.call(hello, { cause: "web" });
  await manager.call(hello, { cause: "heartbeat" });
  await manager.call(hello, { cause: "heartbeat" }); // 1,500 used: under the cap, still sent
  await assert.rejects(manager.call(hello, { cause: "heartbeat" }), (error: unknown) => {
    assert.ok(error instanceof UsageCapError);
    assert.equal(error.code, "usage_cap");
    assert.equal(
      error.message,
      'LLM calls for "heartbeat" are refused until tomorrow: it used 3,000 of its 2,000 ' +
        "tokens today (core.llm.causes.heartbeat.daily_token_cap)",
    );
    return true;
  });
  assert.equal(a.requests.length, 3, "the refused call was not sent");
  await manager.call(hello, { cause: "web" }); // other causes go on
  await manager.call(hello); // no cause: "other"
  const today = dayOf(Date.now());
  const rows = usage.causes(today, today).map((r) => [r.cause, r.calls, r.cost]);
  // 1,000 in at 2.5 + 500 out at 10 per million = 0.0075 a call.
  assert.deepEqual(rows, [["heartbeat", 2, 0.015], ["other", 1, 0.0075], ["web", 2, 0.015]]);
  assert.equal(usage.totals("a", today).cost, 0.0375);
});
