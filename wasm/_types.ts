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
