import assert from "node:assert/strict";
import {
  createQuantizedVectorSet,
  i8Stride,
  type QuantizedVectorSet,
  quantizeI8,
} from "../../wasm/mod.ts";
import { rng } from "../fakes/random.ts";

/** A random unit vector (sum of uniforms: close enough to Gaussian for directions). */
function unitVector(random: () => number, dim: number): Float32Array {
  const v = Float32Array.from(
    { length: dim },
    () => random() + random() + random() - 1.5,
  );
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

function pair(dim: number, capacity?: number): [QuantizedVectorSet, QuantizedVectorSet] {
  return [
    createQuantizedVectorSet(dim, { capacity }),
    createQuantizedVectorSet(dim, { implementation: "ts", capacity }),
  ];
}

/** The same `n` adds, with removes and overwrites among them, to both sets. */
function fillAlike(a: QuantizedVectorSet, b: QuantizedVectorSet, random: () => number, n: number) {
  for (let i = 0; i < n; i++) {
    const v = unitVector(random, a.dim);
    assert.equal(a.add(v), b.add(v));
    if (i % 7 === 3) {
      const slot = Math.floor(random() * a.size);
      assert.equal(a.remove(slot), b.remove(slot));
    }
    if (i % 11 === 5) {
      const slot = Math.floor(random() * a.size);
      const w = unitVector(random, a.dim);
      a.set(slot, w);
      b.set(slot, w);
    }
  }
}

Deno.test("quantizeI8 maps max |x| to ±127, zero pads, and gives a zero vector scale 0", () => {
  const out = new Int8Array(i8Stride(5)).fill(9);
  const scale = quantizeI8(Float32Array.from([0.5, -1, 0.25, 0, 1]), out);
  assert.equal(out.length, 16);
  assert.deepEqual([...out.subarray(0, 6)], [64, -127, 32, 0, 127, 0]);
  assert.ok(out.subarray(5).every((x) => x === 0));
  assert.equal(scale, Math.fround(1 / 127));
  assert.equal(quantizeI8(new Float32Array(3), out), 0);
  assert.ok(out.every((x) => x === 0));
  assert.throws(() => quantizeI8(Float32Array.from([1, NaN]), out), RangeError);
  assert.throws(() => quantizeI8(Float32Array.from([Infinity]), out), RangeError);
});

Deno.test("QuantizedVectorSet: wasm and the TS twin give identical scores and top-k", () => {
  const random = rng(11);
  for (const dim of [1, 3, 15, 16, 17, 33, 100, 384, 512, 515]) {
    const [a, b] = pair(dim, dim % 2 === 0 ? undefined : 7);
    fillAlike(a, b, random, 300);
    assert.equal(a.size, b.size);
    for (let round = 0; round < 5; round++) {
      const query = unitVector(random, dim);
      assert.deepEqual(a.scores(query), b.scores(query), `dim ${dim}`);
      for (const k of [0, 1, 10, a.size, a.size + 5]) {
        assert.deepEqual(a.topK(query, k), b.topK(query, k), `dim ${dim} k ${k}`);
      }
    }
  }
});

Deno.test("QuantizedVectorSet: the sign-code first stage is the same in wasm and the TS twin", () => {
  const random = rng(21);
  for (const dim of [1, 15, 16, 17, 100, 384, 512, 515]) {
    const [a, b] = pair(dim, 5); // grows several times: codes move with the rows
    fillAlike(a, b, random, 400);
    for (let round = 0; round < 5; round++) {
      const query = unitVector(random, dim);
      for (const [k, candidates] of [[10, 0], [10, 5], [10, 40], [3, 200], [50, a.size - 1]]) {
        const wasm = a.topK(query, k!, { candidates });
        assert.deepEqual(wasm, b.topK(query, k!, { candidates }), `dim ${dim} ${k}/${candidates}`);
        assert.equal(wasm.length, Math.min(k!, candidates!));
      }
      // As many candidates as vectors (or more): the plain scan, exactly.
      assert.deepEqual(a.topK(query, 10, { candidates: a.size }), a.topK(query, 10));
    }
  }
});

Deno.test("QuantizedVectorSet: the first stage keeps the rows nearest by sign code", () => {
  const dim = 32;
  const set = createQuantizedVectorSet(dim);
  const signs = (bits: number) =>
    Float32Array.from({ length: dim }, (_, j) => (bits >> j) & 1 ? 0.3 : -0.1);
  // Slots 0..3 differ from the query's signs in 0, 8, 1 and 16 components.
  for (const bits of [0xff, 0xffff, 0x7f, 0xff_ffff]) set.add(signs(bits));
  const query = signs(0xff);
  assert.deepEqual(set.topK(query, 4, { candidates: 2 }).map((h) => h.slot).sort(), [0, 2]);
  assert.deepEqual(set.topK(query, 1, { candidates: 3 }).map((h) => h.slot), [0]);
  assert.throws(() => set.topK(query, 1, { candidates: -1 }), RangeError);
  assert.throws(() => set.topK(query, 1, { candidates: 1.5 }), RangeError);
});

Deno.test("QuantizedVectorSet.topK ranks ties by lower slot in both implementations", () => {
  const random = rng(12);
  const dim = 21;
  const same = unitVector(random, dim);
  for (const set of pair(dim)) {
    for (let i = 0; i < 40; i++) set.add(i % 3 === 0 ? same : unitVector(random, dim));
    const top = set.topK(same, 14);
    assert.deepEqual(top.map((r) => r.slot), [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39]);
    assert.ok(top.every((r) => r.score === top[0]!.score));
    assert.ok(Math.abs(top[0]!.score - 1) < 0.01, `self score ${top[0]!.score}`);
    const scores = set.scores(same);
    assert.equal(scores[3], top[0]!.score, "topK scores equal scores()");
    const all = set.topK(same, 100);
    assert.equal(all.length, 40);
    for (let i = 1; i < all.length; i++) {
      const [p, c] = [all[i - 1]!, all[i]!];
      assert.ok(p.score > c.score || (p.score === c.score && p.slot < c.slot));
    }
  }
});

Deno.test("QuantizedVectorSet.remove moves the last vector so an id map stays right", () => {
  const random = rng(13);
  const dim = 40;
  for (const set of pair(dim)) {
    const vectors = new Map<string, Float32Array>();
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const v = unitVector(random, dim);
      vectors.set(`doc${i}`, v);
      ids[set.add(v)] = `doc${i}`;
    }
    for (let i = 0; i < 30; i++) {
      const slot = Math.floor(random() * set.size);
      vectors.delete(ids[slot]!);
      const moved = set.remove(slot);
      if (moved >= 0) ids[slot] = ids[moved]!;
      else assert.equal(slot, set.size);
      ids.length = set.size;
    }
    assert.equal(set.size, 20);
    assert.equal(set.remove(set.size - 1), -1);
    vectors.delete(ids.pop()!);
    for (const [id, v] of vectors) assert.equal(ids[set.topK(v, 1)[0]!.slot], id);
  }
});

Deno.test("QuantizedVectorSet int8 top-10 recalls at least 90% of exact cosine top-10", () => {
  const random = rng(14);
  const dim = 256;
  const n = 20_000;
  const rows = Array.from({ length: n }, () => unitVector(random, dim));
  const [set] = pair(dim, n);
  for (const v of rows) set!.add(v);
  let hits = 0;
  const queries = 20;
  for (let q = 0; q < queries; q++) {
    const query = unitVector(random, dim);
    const exact = rows.map((r, slot) => {
      let dot = 0;
      for (let j = 0; j < dim; j++) dot += r[j]! * query[j]!;
      return { slot, dot };
    }).sort((x, y) => y.dot - x.dot).slice(0, 10);
    const approx = new Set(set!.topK(query, 10).map((r) => r.slot));
    hits += exact.filter((e) => approx.has(e.slot)).length;
  }
  const recall = hits / (queries * 10);
  assert.ok(recall >= 0.9, `recall@10 ${recall}`);
});

Deno.test("QuantizedVectorSet keeps its vectors across memory growth and clear", () => {
  const random = rng(15);
  const dim = 300;
  const [a, b] = pair(dim, 0);
  const bytesBefore = a.residentBytes();
  const probe = unitVector(random, dim);
  for (let i = 0; i < 3000; i++) {
    const v = i === 0 ? probe : unitVector(random, dim);
    a.add(v);
    b.add(v);
    if (i % 500 === 499) assert.deepEqual(a.scores(probe), b.scores(probe));
  }
  assert.ok(a.residentBytes() > bytesBefore + 3000 * dim, "wasm memory grew");
  assert.equal(b.residentBytes(), 4096 * (i8Stride(dim) + 4), "TS holds capacity × (row+scale)");
  assert.equal(a.topK(probe, 1)[0]!.slot, 0);
  a.clear();
  assert.equal(a.size, 0);
  assert.deepEqual(a.topK(probe, 3), []);
  assert.equal(a.add(probe), 0);
  assert.equal(a.topK(probe, 3).length, 1);
});

Deno.test("QuantizedVectorSet residentBytes is about a quarter of float32 with a capacity hint", () => {
  const dim = 512;
  const n = 10_000;
  const set = createQuantizedVectorSet(dim, { capacity: n });
  const v = unitVector(rng(16), dim);
  for (let i = 0; i < n; i++) set.add(v);
  const ratio = set.residentBytes() / (n * dim * 4);
  assert.ok(ratio < 0.3, `ratio ${ratio}`);
});

Deno.test("QuantizedVectorSet rejects bad shapes, slots, k and options", () => {
  for (const set of pair(4)) {
    assert.throws(() => set.add(new Float32Array(3)), RangeError);
    assert.throws(() => set.add(Float32Array.from([1, 0, NaN, 0])), RangeError);
    assert.throws(() => set.set(0, new Float32Array(4)), RangeError);
    assert.throws(() => set.remove(0), RangeError);
    assert.throws(() => set.topK(new Float32Array(4), -1), RangeError);
    assert.throws(() => set.topK(new Float32Array(4), 1.5), RangeError);
    assert.throws(() => set.scores(new Float32Array(5)), RangeError);
    set.add(Float32Array.from([1, 0, 0, 0]));
    assert.throws(() => set.remove(1), RangeError);
    assert.deepEqual(set.topK(new Float32Array(4), 5), [{ slot: 0, score: 0 }]);
  }
  assert.throws(() => createQuantizedVectorSet(0), RangeError);
  assert.throws(() => createQuantizedVectorSet(4, { capacity: -1 }), RangeError);
});
