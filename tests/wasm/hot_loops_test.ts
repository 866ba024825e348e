import assert from "node:assert/strict";
import fc from "fast-check";
import {
  bigramJaccardBatchTs,
  bigramJaccardTs,
  cosineScoresTs,
  dotScoresTs,
  loadHotLoops,
  selectTopK,
  topKTs,
} from "../../wasm/mod.ts";
import { mayChangeWhenLowered } from "../../wasm/_wasm.ts";
import { rng } from "../fakes/random.ts";

const wasm = loadHotLoops();
const ts = loadHotLoops({ implementation: "ts" });

const DIMS = [1, 2, 3, 4, 5, 7, 8, 13, 31, 64, 127, 300, 511, 512, 1023, 1024];
const HAN =
  "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能过";

function randomVectors(random: () => number, count: number): Float32Array {
  return Float32Array.from({ length: count }, () => random() * 2 - 1);
}

function assertClose(actual: Float32Array, expected: Float32Array, tolerance: number): void {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < actual.length; i++) {
    const diff = Math.abs(actual[i]! - expected[i]!);
    assert.ok(diff <= tolerance, `index ${i}: ${actual[i]} vs ${expected[i]} (|Δ| ${diff})`);
  }
}

function randomHan(random: () => number, length: number): string {
  return Array.from({ length }, () => HAN[Math.floor(random() * HAN.length)]).join("");
}

Deno.test("cosineScores matches the TS twin for dims 1..1024 and many row counts", () => {
  const random = rng(1);
  for (const dim of DIMS) {
    for (const n of [0, 1, 3, 17]) {
      const query = randomVectors(random, dim);
      const matrix = randomVectors(random, n * dim);
      const expected = cosineScoresTs(query, matrix);
      assertClose(wasm.cosineScores(query, matrix), expected, 1e-5);
      assertClose(ts.cosineScores(query, matrix), expected, 0);
    }
  }
});

Deno.test("dotScores matches the TS twin on normalised vectors", () => {
  const random = rng(2);
  for (const dim of DIMS) {
    const normalise = (v: Float32Array) => {
      const norm = Math.hypot(...v) || 1;
      return v.map((x) => x / norm);
    };
    const query = normalise(randomVectors(random, dim));
    const rows = Array.from({ length: 9 }, () => normalise(randomVectors(random, dim)));
    const matrix = new Float32Array(rows.flatMap((r) => [...r]));
    assertClose(wasm.dotScores(query, matrix), dotScoresTs(query, matrix), 1e-5);
  }
});

Deno.test("cosineScores gives 0, not NaN, for zero vectors", () => {
  for (const hot of [wasm, ts]) {
    const zero = new Float32Array(5);
    const matrix = Float32Array.from([1, 2, 3, 4, 5, 0, 0, 0, 0, 0]);
    assert.deepEqual([...hot.cosineScores(zero, matrix)], [0, 0]);
    const scores = hot.cosineScores(Float32Array.from([1, 0, 0, 0, 0]), matrix);
    assert.ok(scores[0]! > 0);
    assert.equal(scores[1], 0);
  }
});

Deno.test("cosineScores parity holds for arbitrary finite vectors (property)", () => {
  // wasm sums in f32: squares of |x| < ~1e-19 underflow there, so the guarantee (docs/wasm.md)
  // covers ordinary magnitudes; tiny values are flushed to 0 here, exact zeros stay in.
  const value = fc.float({ min: -1e3, max: 1e3, noNaN: true }).map((x) =>
    Math.abs(x) < 1e-6 ? 0 : x
  );
  const input = fc.integer({ min: 1, max: 40 }).chain((dim) =>
    fc.tuple(
      fc.array(value, { minLength: dim, maxLength: dim }),
      fc.array(fc.array(value, { minLength: dim, maxLength: dim }), { maxLength: 8 }),
    )
  );
  fc.assert(fc.property(input, ([q, rows]) => {
    const query = Float32Array.from(q);
    const matrix = new Float32Array(rows.flat());
    assertClose(wasm.cosineScores(query, matrix), cosineScoresTs(query, matrix), 1e-5);
  }));
});

Deno.test("cosineScores and VectorSet.add reject vectors of the wrong shape", () => {
  for (const hot of [wasm, ts]) {
    assert.throws(() => hot.cosineScores(new Float32Array(0), new Float32Array(0)), RangeError);
    assert.throws(() => hot.cosineScores(new Float32Array(3), new Float32Array(4)), RangeError);
    assert.throws(() => hot.createVectorSet(0), RangeError);
    const set = hot.createVectorSet(3);
    assert.throws(() => set.add(new Float32Array(2)), RangeError);
    assert.throws(() => set.addMany(new Float32Array(4)), RangeError);
    assert.throws(() => set.cosineScores(new Float32Array(4)), RangeError);
    assert.throws(() => set.get(0), RangeError);
    assert.throws(() => set.topK(new Float32Array(3), { k: -1 }), RangeError);
  }
});

Deno.test("topK orders by score, breaks ties by lower index, and clamps k", () => {
  // Exact scores: rows 1 and 3 tie at cosine 1, rows 0 and 4 tie at 0.
  const query = Float32Array.from([1, 0]);
  const matrix = Float32Array.from([0, 1, 2, 0, -1, 0, 3, 0, 0, 5, 1, 1]);
  for (const hot of [wasm, ts]) {
    const best = hot.topK(query, matrix, { k: 4 });
    assert.deepEqual(best.map((r) => r.index), [1, 3, 5, 0]);
    assert.equal(best[0]!.score, 1);
    assert.deepEqual(hot.topK(query, matrix, { k: 99 }).map((r) => r.index), [1, 3, 5, 0, 4, 2]);
    assert.deepEqual(hot.topK(query, matrix, { k: 0 }), []);
    assert.deepEqual(hot.topK(query, matrix, { k: 2, metric: "dot" }).map((r) => r.index), [
      3,
      1,
    ]);
  }
});

Deno.test("selectTopK agrees with a full sort on random scores with ties and NaN", () => {
  const score = fc.oneof(fc.constantFrom(0, 0.5, 1, Number.NaN), fc.float({ noNaN: true }));
  fc.assert(fc.property(fc.array(score, { maxLength: 60 }), fc.nat(70), (values, k) => {
    const scores = Float32Array.from(values);
    const rank = (i: number) => (Number.isNaN(scores[i]) ? -Infinity : scores[i]!);
    const sorted = [...scores.keys()].sort((a, b) => rank(b) - rank(a) || a - b);
    const expected = sorted.slice(0, k);
    assert.deepEqual(selectTopK(scores, k).map((r) => r.index), expected);
  }));
});

Deno.test("topK of wasm and the TS twin agree on random data", () => {
  const random = rng(3);
  for (const dim of [3, 300]) {
    const query = randomVectors(random, dim);
    const matrix = randomVectors(random, 500 * dim);
    const a = wasm.topK(query, matrix, { k: 10 });
    const b = topKTs(query, matrix, { k: 10 });
    assert.deepEqual(a.map((r) => r.index), b.map((r) => r.index));
  }
});

Deno.test("VectorSet keeps rows across memory growth and matches the TS set", () => {
  const random = rng(4);
  const dim = 97;
  const a = wasm.createVectorSet(dim);
  const b = ts.createVectorSet(dim);
  for (let round = 0; round < 24; round++) {
    const rows = randomVectors(random, (round * 23 + 1) * dim);
    assert.equal(a.addMany(rows), b.addMany(rows));
    const query = randomVectors(random, dim);
    assertClose(a.cosineScores(query), b.cosineScores(query), 1e-5);
    if (round % 8 === 0) {
      assertClose(a.dotScores(query), b.dotScores(query), 1e-4);
      assert.deepEqual(a.get(round), b.get(round));
    }
  }
  assert.equal(a.size, b.size);
  assert.ok(a.size * dim * 4 > 64 * 1024 * 8, "the set should outgrow several wasm pages");
  a.clear();
  assert.equal(a.size, 0);
  assert.equal(a.cosineScores(new Float32Array(dim)).length, 0);
  assert.equal(a.add(new Float32Array(dim).fill(1)), 0);
});

Deno.test("stateless calls survive memory growth between calls (no detached views)", () => {
  const random = rng(5);
  const set = wasm.createVectorSet(8);
  for (let i = 1; i <= 60; i++) {
    const dim = 1 + (i % 13);
    const query = randomVectors(random, dim);
    const matrix = randomVectors(random, i * 400 * dim);
    assertClose(wasm.cosineScores(query, matrix), cosineScoresTs(query, matrix), 1e-5);
    set.add(randomVectors(random, 8));
    const texts = Array.from({ length: i * 10 }, () => randomHan(random, 1 + (i % 40)));
    const batch = wasm.bigramJaccardBatch(texts[0]!, texts);
    assert.equal(batch[0], 1);
  }
  assert.equal(set.cosineScores(randomVectors(random, 8)).length, 60);
});

Deno.test("bigramJaccard follows the documented semantics", () => {
  const cases: [string, string, number][] = [
    ["自然语言", "自然科学", 0.2],
    ["自然语言", "自然语言", 1],
    ["", "", 1],
    ["   ", "", 1],
    ["", "a", 0],
    ["张", "张", 1],
    ["张", "张三", 0],
    ["Hello  World", " hello world ", 1],
    ["ab", "ba", 0],
    ["😀😃", "😀😃", 1],
    ["😀😃x", "😀😃", 0.5],
    ["aaaa", "aa", 1],
  ];
  for (const hot of [wasm, ts]) {
    for (const [a, b, expected] of cases) {
      assert.equal(hot.bigramJaccard(a, b), expected, `${hot.implementation} "${a}" vs "${b}"`);
    }
  }
});

/** Strings mixing Han, Latin, emoji, whitespace, lone surrogates and dotted capital I. */
const mixedText = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      ...HAN,
      "A",
      "b",
      "Σ",
      "İ",
      " ",
      "\u3000",
      "\t",
      "😀",
      "🀄",
      "\ud800",
      "\udc00",
    ),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  ),
  maxLength: 40,
});

Deno.test("bigramJaccard and its batch match the TS twin exactly (property)", () => {
  fc.assert(fc.property(mixedText, mixedText, (a, b) => {
    assert.equal(wasm.bigramJaccard(a, b), bigramJaccardTs(a, b));
  }));
  fc.assert(fc.property(mixedText, fc.array(mixedText, { maxLength: 30 }), (q, candidates) => {
    const expected = bigramJaccardBatchTs(q, candidates);
    assert.deepEqual(wasm.bigramJaccardBatch(q, candidates), expected);
    assert.deepEqual(expected, Float32Array.from(candidates, (c) => bigramJaccardTs(q, c)));
  }));
});

Deno.test("bigramJaccardBatch matches the twin on Chinese and English text", () => {
  const random = rng(6);
  const han = Array.from({ length: 3000 }, () => randomHan(random, Math.floor(random() * 80)));
  han.push("x".repeat(5000) + randomHan(random, 3000)); // long text: a large scratch table
  assert.deepEqual(wasm.bigramJaccardBatch(han[1]!, han), bigramJaccardBatchTs(han[1]!, han));
  for (let i = 0; i + 1 < 200; i += 2) { // long pairs take the heap-sort path of bigramKeys
    assert.equal(wasm.bigramJaccard(han[i]!, han[i + 1]!), bigramJaccardTs(han[i]!, han[i + 1]!));
  }
  const words = ["The", "quick", "BROWN", "fox", "jumps", "İstanbul", "ΣΊΣΥΦΟΣ"];
  const english = Array.from(
    { length: 500 },
    () =>
      Array.from(
        { length: 1 + Math.floor(random() * 6) },
        () => words[Math.floor(random() * words.length)],
      ).join(" "),
  );
  const q = "the quick brown İstanbul";
  assert.deepEqual(wasm.bigramJaccardBatch(q, english), bigramJaccardBatchTs(q, english));
  assert.deepEqual(wasm.bigramJaccardBatch(q, []), new Float32Array(0));
});

Deno.test("bigramJaccardBatch grows its text region when lower-casing lengthens text", () => {
  const candidates = Array.from({ length: 200 }, (_, i) => "İ".repeat(1 + (i % 50)));
  const q = "i̇i̇i̇";
  assert.deepEqual(wasm.bigramJaccardBatch(q, candidates), bigramJaccardBatchTs(q, candidates));
  assert.equal(wasm.bigramJaccardBatch(q, candidates)[2], 1);
});

Deno.test("mayChangeWhenLowered says no only for units toLowerCase leaves alone", () => {
  for (let c = 0; c < 0x10000; c++) {
    if (mayChangeWhenLowered(c)) continue;
    const s = String.fromCharCode(c);
    assert.equal(s.toLowerCase(), s, `U+${c.toString(16)}`);
  }
});
