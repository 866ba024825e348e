/**
 * Contracts shared by the wasm and TypeScript implementations of the hot loops.
 * @module
 */

/** Which implementation computes the scores. */
export type Implementation = "wasm" | "ts";

/** Similarity used to score vectors: cosine, or the raw dot product of pre-normalised vectors. */
export type Metric = "cosine" | "dot";

/** One result of a top-k search: the row index and its score. */
export interface ScoredIndex {
  index: number;
  score: number;
}

/** Options of a top-k search. */
export interface TopKOptions {
  /** How many results to return (fewer when there are fewer rows); a non-negative integer. */
  k: number;
  /** Defaults to "cosine". */
  metric?: Metric;
}

/**
 * Vectors kept inside the kernel (wasm linear memory, or a growable array for "ts"), so a
 * search does not copy the matrix. Rows are numbered from 0 in insertion order.
 * Methods throw `RangeError` when a vector's length is not `dim`.
 */
export interface VectorSet {
  /** Length of every vector. */
  readonly dim: number;
  /** Number of rows stored. */
  readonly size: number;
  /** Appends one vector and returns its row index. */
  add(vector: Float32Array): number;
  /** Appends packed rows (length a multiple of `dim`) and returns the index of the first. */
  addMany(rows: Float32Array): number;
  /** Returns a copy of row `index`; throws `RangeError` when it is out of range. */
  get(index: number): Float32Array;
  /** Cosine of `query` against every row, in row order. */
  cosineScores(query: Float32Array): Float32Array;
  /** Dot product of `query` against every row, in row order. */
  dotScores(query: Float32Array): Float32Array;
  /** The best `k` rows: score descending, ties by lower index first. */
  topK(query: Float32Array, options: TopKOptions): ScoredIndex[];
  /** Removes every row (the memory is kept for reuse). */
  clear(): void;
}

/**
 * The hot loops behind one interface. A matrix is row-major and packed: its length is a
 * multiple of `query.length`, which is the dimension. Shape errors throw `RangeError`.
 * Cosine of a zero vector is 0. Bigram Jaccard is described in docs/wasm.md: lower-cased
 * text, whitespace runs collapsed and trimmed, bigrams of code points; two empty texts
 * score 1, one empty text scores 0, a one-character text is its own single "bigram".
 */
export interface HotLoops {
  /** Which implementation this is. */
  readonly implementation: Implementation;
  /** Cosine of `query` against every row of `matrix`. */
  cosineScores(query: Float32Array, matrix: Float32Array): Float32Array;
  /** Dot product of `query` against every row of `matrix` (for pre-normalised vectors). */
  dotScores(query: Float32Array, matrix: Float32Array): Float32Array;
  /** The best `k` rows of `matrix` for `query`: score descending, ties by lower index. */
  topK(query: Float32Array, matrix: Float32Array, options: TopKOptions): ScoredIndex[];
  /** Character-bigram Jaccard similarity of two texts, in [0, 1]. */
  bigramJaccard(a: string, b: string): number;
  /** Bigram Jaccard of `query` against each candidate (f32 scores, candidate order). */
  bigramJaccardBatch(query: string, candidates: readonly string[]): Float32Array;
  /** Creates an empty resident vector set of dimension `dim`. */
  createVectorSet(dim: number): VectorSet;
}

/** One result of a quantized top-k search: the slot and its approximate score. */
export interface ScoredSlot {
  slot: number;
  score: number;
}

/** Options of `QuantizedVectorSet.topK`. */
export interface TopKNearOptions {
  /**
   * Score only this many slots, the nearest by the Hamming distance of 1-bit sign codes (one
   * bit a component, 1/8 of the int8 bytes; ties at the cut-off go to the lower slots). The
   * sign codes read 8× fewer bytes than the int8 scan; a non-negative integer.
   */
  candidates?: number;
}

/** Options of `createQuantizedVectorSet`. */
export interface QuantizedVectorSetOptions {
  /** "wasm" (default) or "ts", the plain TypeScript twin with identical integer semantics. */
  implementation?: Implementation;
  /** Vectors to reserve room for up front, so adding that many never grows the storage. */
  capacity?: number;
}

/**
 * Vectors stored as int8 with one f32 scale each (symmetric: max |x| maps to 127), about a
 * quarter of their float32 size. Slots are dense, 0..size-1; `remove` moves the last vector
 * into the freed slot, so a caller keeps an id↔slot map with two array writes. Scores are
 * dot products of the dequantized vectors: cosine when the caller L2-normalises them.
 * Methods throw `RangeError` on a vector whose length is not `dim` or that holds a
 * non-finite value, on a slot out of range, and on a bad `k`; they never throw otherwise.
 */
export interface QuantizedVectorSet {
  /** Which implementation scores the vectors. */
  readonly implementation: Implementation;
  /** Length of every vector. */
  readonly dim: number;
  /** Number of vectors stored; their slots are 0..size-1. */
  readonly size: number;
  /** Quantizes and appends `vector`; returns its slot (the old `size`). */
  add(vector: Float32Array): number;
  /** Overwrites the vector at `slot` (a re-embedding). */
  set(slot: number, vector: Float32Array): void;
  /**
   * Removes the vector at `slot` in O(1) by moving the last vector into it. Returns the slot
   * that vector came from (the old `size - 1`), or -1 when `slot` was the last and nothing
   * moved. With `ids[slot] = ids[moved]` the caller's map stays right; other slots never move.
   */
  remove(slot: number): number;
  /** Approximate score of `query` against every slot, in slot order. */
  scores(query: Float32Array): Float32Array;
  /**
   * The `k` best slots for `query`: score descending, ties by lower slot first. With
   * `candidates` (fewer than `size`) only that many slots are scored: those whose sign codes
   * are nearest the query's, so the result is approximate (see `TopKNearOptions`).
   */
  topK(query: Float32Array, k: number, options?: TopKNearOptions): ScoredSlot[];
  /** Bytes held for the vectors, their scales and query scratch (the whole wasm memory for "wasm"). */
  residentBytes(): number;
  /** Removes every vector; the memory is kept for reuse. */
  clear(): void;
}
