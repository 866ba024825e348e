/**
 * The in-memory vector index of a tier: id-keyed, int8-quantized (wasm), loaded at its first
 * search when the tier can `load` it (so an idle daemon holds no matrix), and exact when the
 * tier can read back its stored float vectors: the int8 scan picks candidates, their float
 * vectors are scored again, and the ranking is the float one. A large index scans 1-bit sign
 * codes first (64 bytes a row at 512 dimensions, against 512 for int8) and int8-scores only
 * the generous pool nearest by them; tests/memory/docs/vectors_test.ts measures what that keeps.
 */
import { createQuantizedVectorSet, type QuantizedVectorSet } from "../../wasm/mod.ts";

/** A stored vector, as a tier's database hands it over. */
export interface StoredVector {
  id: string;
  vector: Float32Array;
  /** Where the tier's database keeps it (a rowid), handed back to `exact`. */
  key?: number;
}

/**
 * A stored float vector's blob as floats. A blob SQLite handed over in a buffer of its own is
 * used in place: the matrix load reads every row of a tier (100,000 at the bench's home), and a
 * copy of each was a second 2 KB backing store per row for the collector to free after it.
 * Anything else (a view into a larger or unaligned buffer) is copied (and a length that is not
 * whole floats throws a RangeError, as it did).
 */
export function floatsOfBlob(bytes: Uint8Array): Float32Array {
  const own = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength;
  if (own && bytes.byteLength % 4 === 0) {
    return new Float32Array(bytes.buffer as ArrayBuffer, 0, bytes.byteLength / 4);
  }
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

/**
 * The sign-code stage keeps this many int8 candidates per result the search returns (`k`, not
 * the larger re-score pool), and at least SIGN_POOL_MIN; below twice that many vectors the int8
 * scan reads everything (it is cheap). Over 100,000 real sentence vectors the exact top 10 and
 * top 200 were kept in 100 of 100 queries with these, and in 99 of 100 with 8× and 1,024
 * (tests/memory/docs/sign_stage_model_test.ts). Per re-score pool instead (8,000 for the
 * documents' 200) the int8 stage cost twice as much for the same top 200 (issue 14).
 */
const SIGN_POOL_FACTOR = 20;
const SIGN_POOL_MIN = 4096;

/** Options of DocVectors. */
export interface DocVectorsOptions {
  /** Rows to reserve room for at the load; default 16 (the set grows by doubling). */
  capacity?: () => number;
  /**
   * Every stored vector of this space (length `dim`), read once at the first search. Without
   * it the index starts empty and loaded: the caller `put`s every vector itself.
   */
  load?: () => Iterable<StoredVector>;
  /**
   * The stored float vectors of `ids` (those it has), with each one's `key` as loaded or put
   * (-1 when none is known). With it a search re-scores its int8 candidates exactly; without
   * it the int8 scores are the result.
   */
  exact?: (ids: readonly string[], keys: readonly number[]) => Map<string, Float32Array>;
  /**
   * Int8 candidates re-scored per search: twice the `k` asked for, at least this many (default
   * 64). Int8 moves a cosine by at most ~0.003 (bge-small-zh, 0.0006 on average), so the true
   * top k sit well inside them.
   */
  rerank?: number;
  /**
   * Float vectors read by `exact` kept for the next searches (least recently used go first);
   * default 2,048 (4 MB at 512 dimensions), 0 for none. Consecutive recalls re-score mostly the
   * same candidates (their queries share the recent turns), and reading them back was a third
   * of a recall (~5 ms of SQLite at 100,000 documents). `put` and `delete` drop an id's copy.
   */
  floatCache?: number;
}

/** Document vectors by id, scored by cosine (the vectors are L2-normalised). */
export class DocVectors {
  readonly dim: number;
  #o: DocVectorsOptions;
  #set?: QuantizedVectorSet;
  #ids: string[] = [];
  #keys: number[] = [];
  #slots = new Map<string, number>();
  #floats = new Map<string, Float32Array>();

  constructor(dim: number, options: DocVectorsOptions = {}) {
    this.dim = dim;
    this.#o = options;
    if (!options.load) this.#set = this.#create();
  }

  /** Number of vectors held (0 until the first search of a lazily loaded index). */
  get size(): number {
    return this.#ids.length;
  }

  /** Whether the matrix is in memory. */
  get loaded(): boolean {
    return this.#set !== undefined;
  }

  /**
   * Add or replace the vector of `id` (L2-normalised, length `dim`), stored under `key` (kept
   * when omitted for a vector already here). Before the load this is a no-op: the caller
   * stored the vector first, so the load reads it.
   */
  put(id: string, vector: Float32Array, key?: number): void {
    this.#floats.delete(id);
    if (!this.#set) return;
    const slot = this.#slots.get(id);
    if (slot !== undefined) {
      if (key !== undefined) this.#keys[slot] = key;
      return this.#set.set(slot, vector);
    }
    this.#slots.set(id, this.#set.add(vector));
    this.#ids.push(id);
    this.#keys.push(key ?? -1);
  }

  /**
   * Drop the cached float copy of `id`: its stored vector was changed or left its space in the
   * tier's database (an entity renamed, before its re-embed), so `exact` must read it again.
   */
  uncache(id: string): void {
    this.#floats.delete(id);
  }

  /** Remove the vector of `id`; false when it had none (or the index is not loaded yet). */
  delete(id: string): boolean {
    this.#floats.delete(id);
    const slot = this.#slots.get(id);
    if (slot === undefined || !this.#set) return false;
    const moved = this.#set.remove(slot);
    this.#slots.delete(id);
    if (moved >= 0) {
      const movedId = this.#ids[moved]!;
      this.#ids[slot] = movedId;
      this.#keys[slot] = this.#keys[moved]!;
      this.#slots.set(movedId, slot);
    }
    this.#ids.pop();
    this.#keys.pop();
    return true;
  }

  /** Where the tier's database keeps `id`'s vector (a rowid), -1 when not known or not loaded. */
  keyOf(id: string): number {
    const slot = this.#slots.get(id);
    return slot === undefined ? -1 : this.#keys[slot]!;
  }

  /** Whether `id` has a vector (loads the index). */
  has(id: string): boolean {
    this.#ensure();
    return this.#slots.has(id);
  }

  /** The `k` best ids for `query`, best first; ties by lower id. Loads the index. */
  search(query: Float32Array, k: number): { id: string; score: number }[] {
    const set = this.#ensure();
    if (this.#ids.length === 0 || k <= 0) return [];
    const exact = this.#o.exact;
    const pool = Math.min(exact ? Math.max(2 * k, this.#o.rerank ?? 64) : k, this.#ids.length);
    const candidates = Math.max(SIGN_POOL_MIN, SIGN_POOL_FACTOR * Math.min(k, pool));
    const near = 2 * candidates <= this.#ids.length ? { candidates } : {};
    const slots = set.topK(query, pool, near);
    const hits = slots.map((hit) => ({ id: this.#ids[hit.slot]!, score: hit.score }));
    if (!exact) return hits;
    const floats = this.#exact(exact, hits, slots.map((hit) => this.#keys[hit.slot]!));
    const found = hits.filter((h) => floats.get(h.id)?.length === this.dim);
    const scores = dots(query, found.map((h) => floats.get(h.id)!));
    return found.map((h, i) => ({ id: h.id, score: scores[i]! }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, k);
  }

  /** Bytes held in memory for the vectors (0 before a lazy load). */
  residentBytes(): number {
    return (this.#set?.residentBytes() ?? 0) + this.#floats.size * this.dim * 4;
  }

  /** The float vectors of `hits`: the cached ones, the rest read by `exact` and cached. */
  #exact(
    exact: NonNullable<DocVectorsOptions["exact"]>,
    hits: readonly { id: string }[],
    keys: readonly number[],
  ): Map<string, Float32Array> {
    const limit = this.#o.floatCache ?? 2048;
    const out = new Map<string, Float32Array>();
    const missing: string[] = [];
    const missingKeys: number[] = [];
    hits.forEach((h, i) => {
      const known = this.#floats.get(h.id);
      if (known === undefined) return missing.push(h.id), missingKeys.push(keys[i]!);
      out.set(h.id, known);
      this.#floats.delete(h.id); // refresh its place
      this.#floats.set(h.id, known);
    });
    if (missing.length === 0) return out;
    for (const [id, vector] of exact(missing, missingKeys)) {
      out.set(id, vector);
      if (limit > 0 && vector.length === this.dim) this.#floats.set(id, vector);
    }
    for (const id of this.#floats.keys()) {
      if (this.#floats.size <= limit) break;
      this.#floats.delete(id);
    }
    return out;
  }

  #create(): QuantizedVectorSet {
    return createQuantizedVectorSet(this.dim, { capacity: this.#o.capacity?.() });
  }

  #ensure(): QuantizedVectorSet {
    if (this.#set) return this.#set;
    const set = this.#set = this.#create();
    for (const row of this.#o.load?.() ?? []) {
      if (row.vector.length === this.dim) this.put(row.id, row.vector, row.key);
    }
    return set;
  }
}

/** The float dot product, accumulated in f64 (cosine for L2-normalised vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/**
 * `dot(query, v)` of each of `vectors` (each as long as `query`, or longer), to the bit: four
 * at a time, each still summed in order. One sum is a chain of dependent adds; four chains
 * side by side keep the core busy (400 re-scored rows: ~0.6 → ~0.35 ms).
 */
export function dots(query: Float32Array, vectors: readonly Float32Array[]): Float64Array {
  const out = new Float64Array(vectors.length);
  const n = query.length;
  let i = 0;
  for (; i + 4 <= vectors.length; i += 4) {
    const a = vectors[i]!, b = vectors[i + 1]!, c = vectors[i + 2]!, d = vectors[i + 3]!;
    let sa = 0, sb = 0, sc = 0, sd = 0;
    for (let j = 0; j < n; j++) {
      const q = query[j]!;
      sa += q * a[j]!;
      sb += q * b[j]!;
      sc += q * c[j]!;
      sd += q * d[j]!;
    }
    out[i] = sa;
    out[i + 1] = sb;
    out[i + 2] = sc;
    out[i + 3] = sd;
  }
  for (; i < vectors.length; i++) out[i] = dot(query, vectors[i]!);
  return out;
}
