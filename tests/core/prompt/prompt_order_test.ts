import assert from "node:assert/strict";
import {
  buildSystemPrompt,
  estimateTokens,
  type MemorySection,
  orderSections,
  RecentContext,
} from "../../../core/mod.ts";
import { cliEvent } from "../../fakes/context.ts";

function fullWindow(count: number): RecentContext {
  const context = new RecentContext({ capacity: count });
  for (let i = 0; i < count; i++) {
    context.append(cliEvent(i, {
      role: i % 2 === 0 ? "user" : "agent",
      input: i % 2 === 0
        ? `question ${i} ${"about the garden and the weekend ".repeat(3)}`
        : undefined,
      response: i % 2 === 1 ? `answer ${i} ${"我们周末去花园看看吧 ".repeat(2)}` : undefined,
      timestamp: Date.UTC(2026, 0, 1, 0, i),
    }));
  }
  return context;
}

Deno.test("orderSections puts graph, documents, knowledge, then others, stable within a kind", () => {
  const s = (title: string, kind?: MemorySection["kind"]): MemorySection => ({
    title,
    kind,
    lines: ["x"],
  });
  const ordered = orderSections([
    s("other"),
    s("Knowledge", "knowledge"),
    s("Docs", "documents"),
    s("Memory Index", "graph"),
    s("Docs 2", "documents"),
  ]);
  assert.deepEqual(ordered.map((x) => x.title), [
    "Memory Index",
    "Docs",
    "Docs 2",
    "Knowledge",
    "other",
  ]);
});

Deno.test("buildSystemPrompt with an 8k window: persona → notes → memory index → documents → knowledge → timeline, in budget", () => {
  const facts = Array.from(
    { length: 400 },
    (_, i) => `- Ann —fact_${i}→ value number ${i} (2026-01-01)`,
  );
  const prompt = buildSystemPrompt({
    persona: "PERSONA",
    now: Date.UTC(2026, 0, 2),
    memory: [
      { title: "Knowledge", kind: "knowledge", lines: ["- recipes/bread: flour, water, salt"] },
      {
        title: "Related Memory Docs",
        kind: "documents",
        lines: ["- (2026-01-01) we talked about bread"],
      },
      { title: "Memory Index", kind: "graph", lines: facts },
    ],
    notes: ["NOTE FROM PRE_ACTION"],
    context: fullWindow(400),
    currentEventId: "e399",
    maxContextTokens: 8192,
    count: estimateTokens,
  });
  const order = ["PERSONA", "NOTE FROM PRE_ACTION", "[Memory Index]", "[Conversation so far]"]
    .map((s) => prompt.text.indexOf(s));
  assert.ok(order.every((i) => i >= 0), JSON.stringify(order));
  assert.deepEqual([...order].sort((a, b) => a - b), order);
  assert.equal(prompt.budget.target, 6553);
  // The memory index alone exceeds the memory third: the later sections do not fit after it.
  const memoryText = prompt.text.slice(order[2], order[3]);
  assert.ok(estimateTokens(memoryText) <= prompt.budget.memory + 10, "memory stays in its third");
  assert.ok(prompt.tokens <= prompt.budget.target, `${prompt.tokens} tokens`);
  assert.equal(prompt.timeline.at(-1)!.id, "e398", "newest first, current input left out");
  assert.ok(prompt.timeline.length < 399, "the timeline was cut by its budget");
});

Deno.test("buildSystemPrompt budgets are ceilings: little relevant memory stays little", () => {
  const prompt = buildSystemPrompt({
    persona: "PERSONA",
    now: Date.UTC(2026, 0, 2),
    memory: [
      { title: "Related Memory Docs", kind: "documents", lines: ["- (2026-01-01) bread"] },
      { title: "Memory Index", kind: "graph", lines: ["- Ann —likes→ tea (2026-01-01)"] },
    ],
    notes: [],
    context: fullWindow(4),
    currentEventId: "e3",
    maxContextTokens: 8192,
    count: estimateTokens,
  });
  assert.ok(prompt.text.indexOf("[Memory Index]") < prompt.text.indexOf("[Related Memory Docs]"));
  assert.ok(prompt.tokens < 200, `${prompt.tokens} tokens`);
  assert.equal(prompt.timeline.length, 3);
});
