/**
 * The plain TypeScript implementation of `HotLoops`, built from the twins in twin.ts.
 * @module
 */
import type { HotLoops, Metric, ScoredIndex, TopKOptions, VectorSet } from "./_types.ts";
import {
  assertDim,
  bigramJaccardBatchTs,
  bigramJaccardTs,
  cosineScoresTs,
  dotScoresTs,
  selectTopK,
  topKTs,
} from "./twin.ts";

class TsVectorSet implements VectorSet {
  readonly dim: number;
  #data: Float32Array;
  #size = 0;

  constructor(dim: number) {
    this.dim = dim;
    this.#data = new Float32Array(dim * 16);
  }

  get size(): number {
    return this.#size;
  }

  add(vector: Float32Array): number {
    if (vector.length !== this.dim) {
      throw new RangeError(
        `Cannot add a vector of length ${vector.length}: the set has dimension ${this.dim}`,
      );
    }
    return this.addMany(vector);
  }

  addMany(rows: Float32Array): number {
    if (rows.length % this.dim !== 0) {
      throw new RangeError(
        `Cannot add rows: length ${rows.length} is not a multiple of dimension ${this.dim}`,
      );
    }
    const first = this.#size;
    const used = first * this.dim;
    if (used + rows.length > this.#data.length) {
      const grown = new Float32Array(Math.max(this.#data.length * 2, used + rows.length));
      grown.set(this.#data.subarray(0, used));
      this.#data = grown;
    }
    this.#data.set(rows, used);
    this.#size += rows.length / this.dim;
    return first;
  }

  get(index: number): Float32Array {
    if (!Number.isInteger(index) || index < 0 || index >= this.#size) {
      throw new RangeError(`Cannot get row ${index}: the set has ${this.#size} rows`);
    }
    return this.#data.slice(index * this.dim, (index + 1) * this.dim);
  }

  cosineScores(query: Float32Array): Float32Array {
    return this.#score(query, "cosine");
  }

  dotScores(query: Float32Array): Float32Array {
    return this.#score(query, "dot");
  }

  topK(query: Float32Array, options: TopKOptions): ScoredIndex[] {
    return selectTopK(this.#score(query, options.metric), options.k);
  }

  clear(): void {
    this.#size = 0;
  }

  #score(query: Float32Array, metric: Metric | undefined): Float32Array {
    if (query.length !== this.dim) {
      throw new RangeError(
        `Cannot score a query of length ${query.length}: the set has dimension ${this.dim}`,
      );
    }
    const rows = this.#data.subarray(0, this.#size * this.dim);
    return metric === "dot" ? dotScoresTs(query, rows) : cosineScoresTs(query, rows);
  }
}

/** Builds the TypeScript `HotLoops`. */
export function createTsHotLoops(): HotLoops {
  return {
    implementation: "ts",
    cosineScores: cosineScoresTs,
    dotScores: dotScoresTs,
    topK: topKTs,
    bigramJaccard: bigramJaccardTs,
    bigramJaccardBatch: bigramJaccardBatchTs,
    createVectorSet: (dim) => {
      assertDim(dim);
      return new TsVectorSet(dim);
    },
  };
}
