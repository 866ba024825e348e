import assert from "node:assert/strict";
import {
  buildSystemPrompt,
  computeTokenBudget,
  estimateTokens,
  MAX_TARGET_TOKENS,
  RecentContext,
} from "../../../core/mod.ts";

Deno.test("computeTokenBudget splits the working band ⅓ memory, ⅔ context, capped at 600k", () => {
  assert.deepEqual(computeTokenBudget(10_000, 500), {
    maxContext: 10_000,
    target: 8000,
    fixed: 500,
    memory: 2500,
    context: 5000,
  });
  assert.equal(computeTokenBudget(1_000_000, 0).target, MAX_TARGET_TOKENS);
  assert.deepEqual(computeTokenBudget(1000, 5000), {
    maxContext: 1000,
    target: 800,
    fixed: 5000,
    memory: 0,
    context: 0,
  });
});

Deno.test("estimateTokens counts CJK characters one each and other text by four", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("abcd"), 1);
  assert.equal(estimateTokens("abcde"), 2);
  assert.equal(estimateTokens("你好世界"), 4);
  assert.equal(estimateTokens("我叫 Ann"), 2 + 1);
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
