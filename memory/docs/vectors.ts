/** The in-memory vector index of the document layer: id-keyed, int8-quantized (wasm). */
import { createQuantizedVectorSet, type QuantizedVectorSet } from "../../wasm/mod.ts";

/** Document vectors by id, scored by (approximate) cosine. */
export class DocVectors {
  readonly dim: number;
  #set: QuantizedVectorSet;
  #ids: string[] = [];
  #slots = new Map<string, number>();

  constructor(dim: number, options: { capacity?: number } = {}) {
    this.dim = dim;
    this.#set = createQuantizedVectorSet(dim, { capacity: options.capacity });
  }

  /** Number of vectors. */
  get size(): number {
    return this.#ids.length;
  }

  /** Add or replace the vector of `id` (L2-normalised, length `dim`). */
  put(id: string, vector: Float32Array): void {
    const slot = this.#slots.get(id);
    if (slot !== undefined) return this.#set.set(slot, vector);
    this.#slots.set(id, this.#set.add(vector));
    this.#ids.push(id);
  }

  /** Remove the vector of `id`; false when it had none. */
  delete(id: string): boolean {
    const slot = this.#slots.get(id);
    if (slot === undefined) return false;
    const moved = this.#set.remove(slot);
    this.#slots.delete(id);
    if (moved >= 0) {
      const movedId = this.#ids[moved]!;
      this.#ids[slot] = movedId;
      this.#slots.set(movedId, slot);
    }
    this.#ids.pop();
    return true;
  }

  /** Whether `id` has a vector. */
  has(id: string): boolean {
    return this.#slots.has(id);
  }

  /** The `k` best ids for `query`, best first. */
  search(query: Float32Array, k: number): { id: string; score: number }[] {
    if (this.#ids.length === 0 || k <= 0) return [];
    return this.#set.topK(query, Math.min(k, this.#ids.length))
      .map((hit) => ({ id: this.#ids[hit.slot]!, score: hit.score }));
  }

  /** Bytes held in memory for the vectors. */
  residentBytes(): number {
    return this.#set.residentBytes();
  }
}
