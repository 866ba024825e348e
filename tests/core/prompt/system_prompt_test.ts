import assert from "node:assert/strict";
import {
  buildSystemPrompt,
  computeTokenBudget,
  DEFAULT_SECTION_SHARES,
  estimateTokens,
  MAX_TARGET_TOKENS,
  parseSectionShares,
  RecentContext,
} from "../../../core/mod.ts";

Deno.test("computeTokenBudget gives each section its share of the free band, capped at 600k", () => {
  const budget = computeTokenBudget(10_000, 500);
  assert.equal(budget.target, 8000);
  assert.equal(budget.fixed, 500);
  // 7,500 free: persona 10 %, graph 12, documents 12, knowledge 8, skills 5, other 5, timeline 45.
  assert.deepEqual(budget.sections, {
    persona: 750,
    graph: 900,
    documents: 900,
    knowledge: 600,
    skills: 375,
    other: 375,
    timeline: 3375,
  });
  assert.equal(budget.memory, 900 + 900 + 600 + 375 + 375);
  assert.equal(budget.context, 3375);
  assert.equal(computeTokenBudget(1_000_000, 0).target, MAX_TARGET_TOKENS);
  const full = computeTokenBudget(1000, 5000);
  assert.equal(full.target, 800);
  assert.ok(Object.values(full.sections).every((n) => n === 0), "nothing is free");
});

Deno.test("parseSectionShares reads percent shares, keeps the rest and refuses more than 100", () => {
  assert.deepEqual(parseSectionShares("timeline=30, skills=0"), {
    ...DEFAULT_SECTION_SHARES,
    timeline: 30,
    skills: 0,
  });
  assert.deepEqual(parseSectionShares(""), DEFAULT_SECTION_SHARES);
  assert.throws(() => parseSectionShares("timeline=95"), /add up to 147%/); // 52 + 95
  assert.throws(() => parseSectionShares("tools=5"), /Invalid prompt share "tools=5"/);
  assert.throws(() => parseSectionShares("timeline=-1"), RangeError);
});

Deno.test("buildSystemPrompt orders persona, memory, notes and a newest-first timeline in budget", () => {
  const context = new RecentContext({ capacity: 100 });
  for (let i = 0; i < 50; i++) {
    context.append({
      id: `e${i}`,
      role: i % 2 === 0 ? "user" : "agent",
      source: "cli",
      channel: "cli",
      input: i % 2 === 0 ? `question ${i} ${"x".repeat(100)}` : undefined,
      response: i % 2 === 1 ? `answer ${i}` : undefined,
      timestamp: Date.UTC(2026, 0, 1, 0, i),
    });
  }
  const prompt = buildSystemPrompt({
    persona: "PERSONA",
    now: Date.UTC(2026, 0, 2),
    memory: [{ title: "Memory Index", lines: ["Ann lives in Oslo"] }],
    notes: ["NOTE"],
    context,
    currentEventId: "e49",
    maxContextTokens: 1000,
    count: estimateTokens,
  });
  const order = ["PERSONA", "NOTE", "[Memory Index]", "[Conversation so far]"]
    .map((s) => prompt.text.indexOf(s));
  assert.deepEqual([...order].sort((a, b) => a - b), order);
  assert.ok(order.every((i) => i >= 0));
  assert.ok(
    prompt.timeline.length > 0 && prompt.timeline.length < 49,
    "the budget cut the timeline",
  );
  assert.equal(prompt.timeline.at(-1)!.id, "e48", "newest kept, current input left out");
  const times = prompt.timeline.map((e) => e.timestamp);
  assert.deepEqual(times, [...times].sort((a, b) => a - b), "chronological");
  assert.ok(prompt.tokens <= prompt.budget.target + prompt.budget.fixed);
});
