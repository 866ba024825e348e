/**
 * `QuantizedVectorSet`: int8 vectors with one f32 scale each, scored by the wasm `i8Scores` /
 * `i8TopK` kernels or by their TypeScript twin, optionally after a first stage over their 1-bit
 * sign codes. One class owns the slots, the validation and the quantization; a small storage
 * backend (_i8_storage.ts: wasm linear memory or plain typed arrays) holds the bytes and runs
 * the kernels, so both implementations share every rule but the arithmetic.
 * @module
 */
import type {
  Implementation,
  QuantizedVectorSet,
  QuantizedVectorSetOptions,
  ScoredSlot,
  TopKNearOptions,
} from "./_types.ts";
import { type I8Storage, TsStorage, WasmStorage } from "./_i8_storage.ts";
import { assertDim, i8Stride, quantizeI8, signCodeBytes } from "./twin.ts";
function byRank(a: [number, number], b: [number, number]): number {
  return b[1] - a[1] || a[0] - b[0];
}

class QuantizedSet implements QuantizedVectorSet {
  readonly dim: number;
  #storage: I8Storage;
  #stride: number;
  #size = 0;
  #scratch: Int8Array;

  constructor(dim: number, storage: I8Storage, capacity: number) {
    this.dim = dim;
    this.#stride = i8Stride(dim);
    this.#storage = storage;
    this.#scratch = new Int8Array(this.#stride);
    storage.reserve(capacity, 0);
  }

  get implementation(): Implementation {
    return this.#storage.implementation;
  }

  get size(): number {
    return this.#size;
  }

  add(vector: Float32Array): number {
    const scale = this.#quantize(vector, "add");
    const slot = this.#size;
    if (slot === this.#storage.capacity) {
      this.#storage.reserve(Math.max(16, this.#storage.capacity * 2), slot);
    }
    this.#write(slot, scale);
    this.#size++;
    return slot;
  }

  set(slot: number, vector: Float32Array): void {
    this.#checkSlot(slot, "set");
    this.#write(slot, this.#quantize(vector, "set"));
  }

  remove(slot: number): number {
    this.#checkSlot(slot, "remove");
    const last = --this.#size;
    if (slot === last) return -1;
    const rows = this.#storage.rows();
    rows.copyWithin(slot * this.#stride, last * this.#stride, (last + 1) * this.#stride);
    const scales = this.#storage.scales();
    scales[slot] = scales[last]!;
    const bytes = signCodeBytes(this.#stride);
    this.#storage.codes().copyWithin(slot * bytes, last * bytes, (last + 1) * bytes);
    return last;
  }

  scores(query: Float32Array): Float32Array {
    const qScale = this.#quantize(query, "score");
    const out = this.#storage.scores(this.#scratch, this.#size);
    for (let i = 0; i < out.length; i++) out[i] = out[i]! * qScale;
    return out;
  }

  topK(query: Float32Array, k: number, options: TopKNearOptions = {}): ScoredSlot[] {
    if (!Number.isInteger(k) || k < 0) {
      throw new RangeError(`Cannot select top k: k must be a non-negative integer, got ${k}`);
    }
    const candidates = options.candidates ?? Infinity;
    if (candidates !== Infinity && (!Number.isInteger(candidates) || candidates < 0)) {
      throw new RangeError(
        `Cannot select top k: candidates must be a non-negative integer, got ${candidates}`,
      );
    }
    const qScale = this.#quantize(query, "score");
    if (k === 0 || this.#size === 0) return [];
    const best =
      (candidates < this.#size
        ? this.#storage.bestNear(this.#scratch, this.#size, k, candidates)
        : this.#storage.best(this.#scratch, this.#size, k)).sort(byRank);
    return best.map(([slot, score]) => ({ slot, score: Math.fround(score * qScale) }));
  }

  residentBytes(): number {
    return this.#storage.bytes();
  }

  clear(): void {
    this.#size = 0;
  }

  #quantize(vector: Float32Array, what: string): number {
    if (vector.length !== this.dim) {
      throw new RangeError(
        `Cannot ${what} a vector of length ${vector.length}: the set has dimension ${this.dim}`,
      );
    }
    return quantizeI8(vector, this.#scratch);
  }

  #write(slot: number, scale: number): void {
    this.#storage.rows().set(this.#scratch, slot * this.#stride);
    this.#storage.scales()[slot] = scale;
    this.#storage.encode(slot);
  }

  #checkSlot(slot: number, what: string): void {
    if (!Number.isInteger(slot) || slot < 0 || slot >= this.#size) {
      throw new RangeError(`Cannot ${what} slot ${slot}: the set has ${this.#size} vectors`);
    }
  }
}

/** Builds a quantized set over `module` ("wasm") or plain typed arrays ("ts"). */
export function createQuantizedSet(
  module: () => WebAssembly.Module,
  dim: number,
  options: QuantizedVectorSetOptions,
): QuantizedVectorSet {
  assertDim(dim);
  const capacity = options.capacity ?? 16;
  if (!Number.isInteger(capacity) || capacity < 0) {
    throw new RangeError(
      `Cannot create a quantized vector set: capacity must be a non-negative integer, got ${capacity}`,
    );
  }
  const implementation = options.implementation ?? "wasm";
  const stride = i8Stride(dim);
  switch (implementation) {
    case "ts":
      return new QuantizedSet(dim, new TsStorage(stride), capacity);
    case "wasm":
      return new QuantizedSet(dim, new WasmStorage(module(), stride), capacity);
    default:
      throw new RangeError(
        `Cannot create a quantized vector set: unknown implementation "${implementation}"`,
      );
  }
}
