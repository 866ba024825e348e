/**
 * A prompt is fitted to each source's own window: context and memory are pruned first, the
 * persona and the user's message are never cut, tool schemas are counted, and a message that
 * cannot fit is refused before anything is sent. The fake servers record the exact requests.
 */
import assert from "node:assert/strict";
import {
  type ContextEvent,
  estimateTokens,
  type EventOf,
  type KernelEvent,
  type MemorySection,
  RecentContext,
} from "../../../core/mod.ts";
import { type FakeRequestBody, reply, startFakeOpenAI } from "../../fixtures/fake_llm.ts";
import { createTestKernel } from "../../fakes/kernel.ts";

/** A persona of about 1,000 tokens whose both ends are recognisable. */
const PERSONA = `PERSONA-START You are the house agent. ${
  "Keep every rule. ".repeat(233)
}PERSONA-END`;

/** 200 events of about 100 tokens each (20,000 in all), oldest first. */
function fullContext(): RecentContext {
  const context = new RecentContext({ capacity: 500 });
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < 200; i++) {
    const event: ContextEvent = {
      id: `old-${i}`,
      role: "user",
      source: "owner",
      channel: "test",
      input: `event-${i} ${"we talked about the garden ".repeat(14)}`,
      timestamp: start + i * 60_000,
    };
    context.append(event);
  }
  return context;
}

/** 100 recalled facts of about 50 tokens each, best first. */
const recall = (): Promise<MemorySection[]> =>
  Promise.resolve([{
    title: "Memory Index",
    kind: "graph",
    lines: Array.from({ length: 100 }, (_, i) => `fact-${i} ${"the owner likes tea ".repeat(10)}`),
  }]);

/** A tool whose schema alone is about 2,000 tokens. */
const bigTool = {
  name: "test_catalogue",
  description: `Look up the catalogue. ${"Every field is documented here. ".repeat(240)}`,
  parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  handler: () => "none",
};

/** The budget's own estimate of a request as it went over the wire. */
function wireTokens(body: FakeRequestBody): number {
  const messages = body.messages.reduce((n, m) => n + estimateTokens(String(m.content)) + 4, 0);
  return messages + estimateTokens(JSON.stringify(body.tools ?? []));
}

function systemOf(body: FakeRequestBody): string {
  return String(body.messages[0]!.content);
}

function timelineLines(body: FakeRequestBody): number {
  return systemOf(body).split("\n").filter((l) => /owner: event-\d+/.test(l)).length;
}

function ofType<T extends KernelEvent["type"]>(events: KernelEvent[], type: T): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.type === type);
}

Deno.test("Turn refuses a message longer than every source's window and sends nothing", async () => {
  await using small = startFakeOpenAI({ fallback: reply.text("never") });
  await using large = startFakeOpenAI({ fallback: reply.text("never") });
  await using kernel = createTestKernel({
    sources: [
      { name: "small", server: small, contextWindow: 4096 },
      { name: "large", server: large, contextWindow: 8192 },
    ],
    persona: PERSONA,
  });
  const huge = "word ".repeat(600_000); // 3 MB, about 600,000 tokens (a short word is one)
  const answer = await kernel.ask(huge);
  assert.equal(answer.status, "error");
  assert.equal(answer.errorCode, "context_length_exceeded");
  assert.match(answer.text, /^Your message is too long: it is about 600,000 tokens/);
  assert.match(answer.text, /largest context window of the LLM sources \(8,192 tokens\)/);
  assert.match(answer.text, /Shorten it to under about [\d,]+ tokens/);
  assert.equal(answer.text.split("\n").length, 1, "one plain sentence");
  assert.equal(small.requests.length + large.requests.length, 0, "no request was sent");
});

Deno.test("Turn prunes timeline and memory to fit the window, keeping persona and message whole", async () => {
  await using server = startFakeOpenAI({ fallback: reply.text("ok") });
  await using kernel = createTestKernel({
    sources: [{ name: "main", server, contextWindow: 8192 }],
    persona: PERSONA,
    context: fullContext(),
    recall,
  });
  kernel.agent.tools.register(bigTool);
  const question = `Which plants did we discuss? ${"Think it over. ".repeat(530)}`; // ~2,000 tokens
  assert.equal((await kernel.ask(question)).status, "ok");
  assert.equal(server.requests.length, 1);
  const body = server.requests[0]!.body;
  assert.ok(wireTokens(body) <= 8192, `the request fits: ${wireTokens(body)} tokens`);
  const system = systemOf(body);
  assert.ok(system.startsWith(PERSONA), "the persona is whole, first");
  assert.deepEqual(body.messages[1], { role: "user", content: question });
  assert.match(system, /owner: event-199 /, "the newest event is kept");
  assert.doesNotMatch(system, /owner: event-0 /, "the oldest is pruned");
  assert.match(system, /^fact-0 /m, "the best memory is kept");
  assert.doesNotMatch(system, /^fact-99 /m, "the weakest is pruned");
});

Deno.test("Turn counts tool schemas in the budget: a large schema leaves less timeline", async () => {
  const sent: FakeRequestBody[] = [];
  for (const withTool of [false, true]) {
    await using server = startFakeOpenAI({ fallback: reply.text("ok") });
    await using kernel = createTestKernel({
      sources: [{ name: "main", server, contextWindow: 8192 }],
      persona: PERSONA,
      context: fullContext(),
    });
    // Sent with every request, as a plugin's `always` tool is; others wait for tool_load.
    if (withTool) kernel.agent.tools.register({ ...bigTool, always: true });
    await kernel.ask("What did we talk about?");
    sent.push(server.requests[0]!.body);
  }
  const [plain, tooled] = sent as [FakeRequestBody, FakeRequestBody];
  assert.ok(wireTokens(tooled) <= 8192, `fits with the schema: ${wireTokens(tooled)} tokens`);
  // The timeline's share (45 %) of the schema's ~1,700 tokens comes out of it: about 9 events
  // of ~85 tokens.
  const dropped = timelineLines(plain) - timelineLines(tooled);
  assert.ok(dropped >= 7 && dropped <= 11, `timeline lines dropped for the schema: ${dropped}`);
});

Deno.test("Turn fits each source's own window: a source too small is skipped unsent, the next gets a full prompt", async () => {
  await using small = startFakeOpenAI({ fallback: reply.text("from small") });
  await using large = startFakeOpenAI({ fallback: reply.text("from large") });
  await using kernel = createTestKernel({
    sources: [
      { name: "small", server: small, contextWindow: 4096 },
      { name: "large", server: large, contextWindow: 32_000 },
    ],
    persona: PERSONA,
    context: fullContext(),
  });
  const question = `Summarise our talks. ${"Be thorough. ".repeat(1100)}`; // ~3,600 tokens
  const answer = await kernel.ask(question);
  assert.equal(answer.text, "from large");
  assert.equal(small.requests.length, 0, "the small source was not sent what cannot fit it");
  const body = large.requests[0]!.body;
  assert.ok(systemOf(body).startsWith(PERSONA));
  assert.deepEqual(body.messages[1], { role: "user", content: question });
  assert.ok(
    timelineLines(body) > 100,
    `the large window holds the timeline: ${timelineLines(body)}`,
  );
  assert.ok(wireTokens(body) <= 32_000);
  const fallback = ofType(kernel.events, "provider_fallback")[0];
  assert.equal(fallback?.from, "small");
  assert.match(fallback?.reason ?? "", /cannot take the request.*not sent/);
});
