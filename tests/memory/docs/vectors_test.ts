import assert from "node:assert/strict";
import {
  DocVectors,
  dot,
  dots,
  floatsOfBlob,
  type StoredVector,
} from "../../../memory/docs/vectors.ts";
import { createHashEmbedder } from "../../../memory/embed/hash.ts";
import { rng } from "../../fakes/random.ts";

function normalised(v: Float32Array): Float32Array {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function gaussian(next: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}

function randomVectors(n: number, dim: number, seed: number): StoredVector[] {
  const next = rng(seed);
  return Array.from({ length: n }, (_, i) => ({
    id: `v${i}`,
    vector: normalised(Float32Array.from({ length: dim }, () => gaussian(next))),
  }));
}

/** Near-duplicates around a few topics: the scores int8 rounding confuses. */
function clusteredVectors(n: number, dim: number, seed: number): StoredVector[] {
  const next = rng(seed);
  const topics = randomVectors(20, dim, seed + 1);
  return Array.from({ length: n }, (_, i) => {
    const base = topics[i % topics.length]!.vector;
    const v = base.map((x) => x + 0.02 * gaussian(next));
    return { id: `c${i}`, vector: normalised(v) };
  });
}

/** A chat history embedded by the hash space: many texts sharing most of their words. */
async function corpusVectors(n: number): Promise<StoredVector[]> {
  const embedder = createHashEmbedder({ dim: 256 });
  const pets = ["猫咪咪", "dog Rex", "parrot Kiwi", "小狗旺财", "cat Mimi"];
  const places = ["Oslo", "北京", "Berlin", "上海", "the lake house"];
  const texts = Array.from({ length: n }, (_, i) => {
    const pet = pets[i % pets.length]!;
    const place = places[Math.floor(i / 5) % places.length]!;
    return `Day ${i}: we took ${pet} to ${place}; 今天第${i % 37}次散步 and it rained ${
      i % 11
    } hours`;
  });
  const vectors = await embedder.embed(texts);
  return vectors.map((vector, i) => ({ id: `d${i}`, vector: normalised(vector) }));
}

function exactTop(rows: readonly StoredVector[], query: Float32Array, k: number): string[] {
  return rows.map((r) => ({ id: r.id, score: dot(query, r.vector) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, k).map((h) => h.id);
}

function index(rows: readonly StoredVector[], exact: boolean): DocVectors {
  const byId = new Map(rows.map((r) => [r.id, r.vector]));
  return new DocVectors(rows[0]!.vector.length, {
    load: () => rows,
    exact: exact
      ? (ids) => new Map(ids.flatMap((id) => byId.has(id) ? [[id, byId.get(id)!]] : []))
      : undefined,
  });
}

function assertExact(rows: StoredVector[], queries: Float32Array[], k: number): number {
  const reranked = index(rows, true);
  const int8 = index(rows, false);
  let int8Wrong = 0;
  for (const query of queries) {
    const want = exactTop(rows, query, k);
    assert.deepEqual(reranked.search(query, k).map((h) => h.id), want);
    if (int8.search(query, k).map((h) => h.id).join() !== want.join()) int8Wrong++;
  }
  return int8Wrong;
}

Deno.test("DocVectors ranks exactly as the float scan over random and clustered vectors", () => {
  const queries = randomVectors(40, 96, 7).map((r) => r.vector);
  assertExact(randomVectors(4000, 96, 1), queries, 10);
  const clustered = clusteredVectors(4000, 96, 3);
  const near = clustered.slice(0, 40).map((r) =>
    normalised(r.vector.map((x, i) => x + 0.01 * Math.sin(i)))
  );
  const int8Wrong = assertExact(clustered, near, 50);
  // The test has teeth: int8 scores alone order these near-duplicates wrongly.
  assert.ok(int8Wrong > 0, "int8 alone should misrank some clustered queries");
});

Deno.test("DocVectors ranks a hash-embedded chat history exactly as the float scan", async () => {
  const rows = await corpusVectors(3000);
  const embedder = createHashEmbedder({ dim: 256 });
  const queries = await embedder.embed([
    "where did we take cat Mimi",
    "小狗旺财 在北京散步",
    "rain at the lake house for 7 hours",
    "Day 1200: parrot Kiwi",
  ]);
  const int8Wrong = assertExact(rows, queries.map(normalised), 50);
  assert.ok(int8Wrong > 0, "int8 alone should misrank some of this corpus's top 50");
});

Deno.test("DocVectors loads at its first search and keeps in step with writes after", () => {
  const rows = randomVectors(300, 32, 11);
  let loads = 0;
  const stored = new Map(rows.map((r) => [r.id, r.vector]));
  const vectors = new DocVectors(32, {
    load: () => (loads++, [...stored].map(([id, vector]) => ({ id, vector }))),
    exact: (ids) => new Map(ids.flatMap((id) => stored.has(id) ? [[id, stored.get(id)!]] : [])),
  });
  // Before the load a write is the store's alone: the load reads it.
  const early = randomVectors(1, 32, 12)[0]!.vector;
  stored.set("early", early);
  vectors.put("early", early);
  assert.equal(vectors.loaded, false);
  assert.equal(vectors.residentBytes(), 0);
  assert.equal(loads, 0);
  assert.equal(vectors.search(early, 1)[0]?.id, "early");
  assert.equal(loads, 1);
  assert.equal(vectors.size, 301);
  assert.ok(vectors.residentBytes() > 0);
  // After it, puts and deletes reach the matrix; a re-embed replaces the vector.
  const late = randomVectors(1, 32, 13)[0]!.vector;
  stored.set("v5", late);
  vectors.put("v5", late);
  assert.equal(vectors.search(late, 1)[0]?.id, "v5");
  stored.delete("v5");
  assert.equal(vectors.delete("v5"), true);
  assert.notEqual(vectors.search(late, 1)[0]?.id, "v5");
  assert.equal(vectors.size, 300);
  assert.equal(vectors.search(early, 1)[0]?.id, "early");
  assert.equal(loads, 1);
});

Deno.test("DocVectors reads a re-score vector once, again after a put, delete or uncache", () => {
  const rows = randomVectors(300, 32, 21);
  const stored = new Map(rows.map((r) => [r.id, r.vector]));
  const reads: string[] = [];
  const vectors = new DocVectors(32, {
    load: () => [...stored].map(([id, vector]) => ({ id, vector })),
    exact: (ids) => {
      reads.push(...ids);
      return new Map(ids.flatMap((id) => stored.has(id) ? [[id, stored.get(id)!]] : []));
    },
    rerank: 8,
    floatCache: 20,
  });
  const query = rows[5]!.vector;
  const first = vectors.search(query, 4);
  assert.equal(reads.length, 8, "the int8 pool is read from the store once");
  reads.length = 0;
  assert.deepEqual(vectors.search(query, 4), first);
  assert.equal(reads.length, 0, "consecutive searches re-score from the cached floats");
  // A re-embed replaces the float the next search scores by.
  const moved = normalised(query.map((x, i) => x + (i % 2 ? 0.3 : -0.3)));
  stored.set("v5", moved);
  vectors.put("v5", moved);
  const top = vectors.search(moved, 1)[0]!;
  assert.equal(top.id, "v5");
  assert.ok(reads.includes("v5"), "a put drops the cached float");
  assert.ok(Math.abs(top.score - dot(moved, moved)) < 1e-6, "scored by the new vector");
  // The store changed the row behind the index's back (it left its space): read it again.
  reads.length = 0;
  stored.delete("v5");
  vectors.uncache("v5");
  assert.notEqual(vectors.search(moved, 1)[0]?.id, "v5", "a row gone from the store drops out");
  assert.ok(reads.includes("v5"));
  // A deleted id's float goes with it, and the cache stays within its bound.
  vectors.delete("v5");
  for (const row of rows.slice(0, 40)) vectors.search(row.vector, 4);
  assert.ok(vectors.residentBytes() > 0);
  reads.length = 0;
  vectors.search(rows[0]!.vector, 4);
  assert.ok(reads.length > 0, "only the 20 latest floats are kept: the first ones were let go");
});

Deno.test("dots gives each vector's dot to the bit, whatever their count", () => {
  for (const [count, dim] of [[0, 8], [1, 8], [3, 5], [4, 512], [7, 384], [9, 1]]) {
    const query = randomVectors(1, dim!, count! + 1)[0]!.vector;
    const vectors = randomVectors(count!, dim!, count! + 2).map((v) => v.vector);
    assert.deepEqual([...dots(query, vectors)], vectors.map((v) => dot(query, v)));
  }
});

Deno.test("floatsOfBlob reads a blob's floats in place when it owns its buffer, else copies", () => {
  const floats = new Float32Array([0.5, -0, NaN, -1e-30, 3.25]);
  const own = new Uint8Array(floats.slice().buffer);
  const inPlace = floatsOfBlob(own);
  assert.equal(inPlace.buffer, own.buffer);
  assert.deepEqual(new Uint8Array(inPlace.buffer), new Uint8Array(floats.buffer));
  // A view into a larger buffer (even an aligned one) is copied: it must not pin the rest.
  const backing = new Uint8Array(4 + floats.byteLength + 4);
  backing.set(new Uint8Array(floats.buffer), 4);
  const copied = floatsOfBlob(backing.subarray(4, 4 + floats.byteLength));
  assert.notEqual(copied.buffer, backing.buffer);
  assert.deepEqual(new Uint8Array(copied.buffer), new Uint8Array(floats.buffer));
  // Bytes that are not whole floats throw, in place or not.
  assert.throws(() => floatsOfBlob(new Uint8Array(6)), RangeError);
  assert.throws(() => floatsOfBlob(backing.subarray(1, 7)), RangeError);
});
