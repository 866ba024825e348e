/**
 * What the TypeScript and the wasm VectorSet share: the row count, every shape check and the
 * metrics by name. A subclass only stores rows and scores a query against them.
 * @module
 */
import type { Metric, ScoredIndex, TopKOptions, VectorSet } from "./_types.ts";
import { selectTopK } from "./twin.ts";

/** A VectorSet whose storage and scoring a subclass provides. */
export abstract class BaseVectorSet implements VectorSet {
  readonly dim: number;
  #size = 0;

  constructor(dim: number) {
    this.dim = dim;
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
    this.store(rows, first);
    this.#size += rows.length / this.dim;
    return first;
  }

  get(index: number): Float32Array {
    if (!Number.isInteger(index) || index < 0 || index >= this.#size) {
      throw new RangeError(`Cannot get row ${index}: the set has ${this.#size} rows`);
    }
    return this.row(index, this.#size);
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

  /** Store packed `rows` from row `first` on (the rows before it are kept). */
  protected abstract store(rows: Float32Array, first: number): void;
  /** A copy of row `index` of the `size` stored. */
  protected abstract row(index: number, size: number): Float32Array;
  /** The scores of `query` against the first `size` rows. */
  protected abstract scoreRows(query: Float32Array, metric: Metric, size: number): Float32Array;

  #score(query: Float32Array, metric: Metric | undefined): Float32Array {
    if (query.length !== this.dim) {
      throw new RangeError(
        `Cannot score a query of length ${query.length}: the set has dimension ${this.dim}`,
      );
    }
    return this.scoreRows(query, metric ?? "cosine", this.#size);
  }
}
