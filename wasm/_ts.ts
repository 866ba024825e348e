/**
 * The plain TypeScript implementation of `HotLoops`, built from the twins in twin.ts.
 * @module
 */
import type { HotLoops, Metric } from "./_types.ts";
import { BaseVectorSet } from "./_vector_set.ts";
import {
  assertDim,
  bigramJaccardBatchTs,
  bigramJaccardTs,
  cosineScoresTs,
  dotScoresTs,
  topKTs,
} from "./twin.ts";

class TsVectorSet extends BaseVectorSet {
  #data: Float32Array;

  constructor(dim: number) {
    super(dim);
    this.#data = new Float32Array(dim * 16);
  }

  protected store(rows: Float32Array, first: number): void {
    const used = first * this.dim;
    if (used + rows.length > this.#data.length) {
      const grown = new Float32Array(Math.max(this.#data.length * 2, used + rows.length));
      grown.set(this.#data.subarray(0, used));
      this.#data = grown;
    }
    this.#data.set(rows, used);
  }

  protected row(index: number): Float32Array {
    return this.#data.slice(index * this.dim, (index + 1) * this.dim);
  }

  protected scoreRows(query: Float32Array, metric: Metric, size: number): Float32Array {
    const rows = this.#data.subarray(0, size * this.dim);
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
