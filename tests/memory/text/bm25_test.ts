import assert from "node:assert/strict";
import fc from "fast-check";
import { Bm25Index } from "../../../memory/text/bm25.ts";

/** A direct BM25 over the same documents, to compare with. */
function naive(docs: Map<string, string[]>, query: string[], k: number) {
  const n = docs.size;
  const avg = [...docs.values()].reduce((s, d) => s + d.length, 0) / n || 1;
  const scores: { id: string; score: number; order: number }[] = [];
  let order = 0;
  for (const [id, words] of docs) {
    let score = 0;
    for (const term of new Set(query)) {
      const df = [...docs.values()].filter((d) => d.includes(term)).length;
      if (df === 0) continue;
      const tf = words.filter((w) => w === term).length;
      if (tf === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * words.length / avg));
    }
    if (score > 0) scores.push({ id, score, order: order++ });
  }
  return scores.sort((a, b) => b.score - a.score || a.order - b.order).slice(0, k);
}

Deno.test("Bm25Index ranks like a direct BM25 through adds and removes", () => {
  const vocabulary = ["cat", "dog", "fish", "猫", "鱼", "rain", "sun", "tea"];
  const word = fc.constantFrom(...vocabulary);
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 30 }), fc.array(word, { maxLength: 12 })),
        {
          maxLength: 80,
        },
      ),
      fc.array(word, { minLength: 1, maxLength: 4 }),
      (ops, query) => {
        const index = new Bm25Index();
        const docs = new Map<string, string[]>();
        for (const [add, n, words] of ops) {
          const id = `d${n}`;
          if (add) {
            docs.delete(id); // re-adding moves it to the end, as the index does
            docs.set(id, words);
            index.add(id, words);
          } else {
            assert.equal(index.remove(id), docs.delete(id));
          }
        }
        assert.equal(index.size, docs.size);
        const got = index.search(query, 5);
        const want = naive(docs, query, 5);
        // The index sums in float32, the direct one in float64: equal scores may tie differently,
        // so compare the score sequence, and each hit's own score against the direct one.
        assert.equal(got.length, want.length);
        got.forEach((h, i) => assert.ok(Math.abs(h.score - want[i]!.score) < 1e-4));
        const all = new Map(naive(docs, query, docs.size).map((h) => [h.id, h.score]));
        for (const h of got) assert.ok(Math.abs(h.score - all.get(h.id)!) < 1e-4, h.id);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("Bm25Index compacts after many removals and keeps answering", () => {
  const index = new Bm25Index();
  for (let i = 0; i < 5000; i++) index.add(`d${i}`, [`w${i % 50}`, "common"]);
  for (let i = 0; i < 4000; i++) index.remove(`d${i}`);
  assert.equal(index.size, 1000);
  const hits = index.search(["w7"], 100);
  assert.equal(hits.length, 20);
  assert.ok(hits.every((h) => Number(h.id.slice(1)) >= 4000 && Number(h.id.slice(1)) % 50 === 7));
  index.add("late", ["w7", "w7"]);
  assert.equal(index.search(["w7"], 1)[0]?.id, "late");
});

Deno.test("Bm25Index searched between writes answers as one built afresh (no stale length norms)", () => {
  const word = fc.constantFrom("cat", "dog", "猫", "rain", "tea");
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 12 }), fc.array(word, { maxLength: 9 })),
        { minLength: 1, maxLength: 40 },
      ),
      fc.array(word, { minLength: 1, maxLength: 3 }),
      (ops, query) => {
        const index = new Bm25Index();
        const docs = new Map<string, string[]>();
        for (const [add, n, words] of ops) {
          const id = `d${n}`;
          docs.delete(id);
          if (add) docs.set(id, words), index.add(id, words);
          else index.remove(id);
          const fresh = new Bm25Index();
          for (const [d, w] of docs) fresh.add(d, w);
          assert.deepEqual(index.search(query, 4), fresh.search(query, 4));
        }
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("Bm25Index answers each search as its first, whatever was searched before (scratch cleared)", () => {
  const vocabulary = ["cat", "dog", "fish", "猫", "鱼", "rain", "sun", "tea"];
  const word = fc.constantFrom(...vocabulary);
  fc.assert(
    fc.property(
      fc.array(fc.array(word, { maxLength: 10 }), { minLength: 1, maxLength: 120 }),
      fc.array(
        fc.tuple(fc.array(word, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 40 })),
      ),
      (docs, searches) => {
        const index = new Bm25Index();
        docs.forEach((words, i) => index.add(`d${i}`, words));
        for (const [query, k] of searches) {
          const fresh = new Bm25Index();
          docs.forEach((words, i) => fresh.add(`d${i}`, words));
          // The same float32 sums in the same order: equal to the bit, ties included.
          assert.deepEqual(index.search(query, k), fresh.search(query, k));
        }
      },
    ),
    { numRuns: 200 },
  );
});
