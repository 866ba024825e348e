import assert from "node:assert/strict";
import type { Embedder } from "../../../core/mod.ts";
import { embedQuery, queryTerms, singleTurn, weightedTurns } from "../../../memory/recall/query.ts";
import { recentTurns } from "../../../memory/recall/turns.ts";
import { createTextAnalyzer } from "../../../memory/mod.ts";

/** A space of two axes: "cat" texts along the first, the rest along the second. */
const axes: Embedder = {
  fingerprint: "test-axes:v1:2",
  dim: 2,
  modalities: ["text"],
  embed: (texts) =>
    Promise.resolve(texts.map((t) => Float32Array.from(t.includes("cat") ? [1, 0] : [0, 1]))),
};

Deno.test("weightedTurns gives the newest turn 1 and each older one decay times the next", () => {
  assert.deepEqual(weightedTurns({ turns: ["a", " ", "b", "c"], decay: 0.5 }), [
    { text: "a", weight: 0.25 },
    { text: "b", weight: 0.5 },
    { text: "c", weight: 1 },
  ]);
  assert.deepEqual(weightedTurns(singleTurn("only")), [{ text: "only", weight: 1 }]);
});

Deno.test("embedQuery adds the turns' vectors by recency and normalises", async () => {
  const v = await embedQuery({ turns: ["my cat", "the weather"], decay: 0.5 }, axes);
  const n = Math.hypot(0.5, 1);
  assert.ok(Math.abs(v[0]! - 0.5 / n) < 1e-6 && Math.abs(v[1]! - 1 / n) < 1e-6);
  assert.deepEqual([...await embedQuery({ turns: ["  "], decay: 1 }, axes)], [0, 0]);
});

Deno.test("queryTerms sums the weights of the turns holding a word", async () => {
  const analyzer = await createTextAnalyzer();
  const terms = queryTerms({ turns: ["kitten sofa", "kitten"], decay: 0.5 }, analyzer);
  assert.equal(terms.get("kitten"), 1.5);
  assert.equal(terms.get("sofa"), 0.5);
});

Deno.test("recentTurns takes the window's newest events before the input, oldest first", () => {
  const event = (id: string, text: string, extra = {}) => ({
    id,
    role: "user" as const,
    source: "cli",
    channel: "cli",
    input: text,
    turnIds: [id],
    timestamp: 0,
    ...extra,
  });
  const events = [
    event("t1", "first"),
    event("t2", "secret", { noMemory: true }),
    event("t3", "second"),
    event("t4", "now"),
  ];
  assert.deepEqual(recentTurns(events, { id: "t4", text: "now" }, 8), ["first", "second", "now"]);
  assert.deepEqual(recentTurns(events, { id: "t4", text: "now" }, 2), ["second", "now"]);
});
