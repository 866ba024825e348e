/**
 * `QuantizedVectorSet`: int8 vectors with one f32 scale each, scored by the wasm `i8Scores` /
 * `i8TopK` kernels or by their TypeScript twin. One class owns the slots, the validation and
 * the quantization; a small storage backend (wasm linear memory or plain typed arrays) holds
 * the bytes and runs the kernel, so both implementations share every rule but the arithmetic.
 * @module
 */
import type {
  Implementation,
  QuantizedVectorSet,
  QuantizedVectorSetOptions,
  ScoredSlot,
} from "./_types.ts";
import type { HotLoopsExports } from "./_wasm.ts";
import { instantiateHotLoops } from "./_wasm.ts";
import { assertDim, i8ScoresTs, i8Stride, quantizeI8, selectTopK } from "./twin.ts";

/** Where the rows live. Views it returns are valid until the next `reserve`. */
interface I8Storage {
  readonly implementation: Implementation;
  readonly capacity: number;
  /** Grows to hold at least `capacity` rows, keeping the first `used` rows and scales. */
  reserve(capacity: number, used: number): void;
  rows(): Int8Array;
  scales(): Float32Array;
  scores(query: Int8Array, n: number): Float32Array;
  /** The best `k` of `n` rows as [slot, f32 score] pairs, in no particular order. */
  best(query: Int8Array, n: number, k: number): [number, number][];
  bytes(): number;
}

class TsStorage implements I8Storage {
  readonly implementation = "ts";
  capacity = 0;
  #stride: number;
  #rows = new Int8Array(0);
  #scales = new Float32Array(0);

  constructor(stride: number) {
    this.#stride = stride;
  }

  reserve(capacity: number, used: number): void {
    const rows = new Int8Array(capacity * this.#stride);
    rows.set(this.#rows.subarray(0, used * this.#stride));
    const scales = new Float32Array(capacity);
    scales.set(this.#scales.subarray(0, used));
    this.#rows = rows;
    this.#scales = scales;
    this.capacity = capacity;
  }

  rows(): Int8Array {
    return this.#rows;
  }

  scales(): Float32Array {
    return this.#scales;
  }

  scores(query: Int8Array, n: number): Float32Array {
    return i8ScoresTs(query, this.#rows, this.#scales, n);
  }

  best(query: Int8Array, n: number, k: number): [number, number][] {
    return selectTopK(this.scores(query, n), k).map((r) => [r.index, r.score]);
  }

  bytes(): number {
    return this.#rows.byteLength + this.#scales.byteLength;
  }
}

/**
 * Rows in the linear memory of an instance of its own, laid out from the heap base as
 * [scales: capacity f32][rows: capacity × stride i8]; per-query scratch follows them.
 */
class WasmStorage implements I8Storage {
  readonly implementation = "wasm";
  capacity = 0;
  #ex: HotLoopsExports;
  #stride: number;
  #base: number;

  constructor(module: WebAssembly.Module, stride: number) {
    this.#ex = instantiateHotLoops(module);
    this.#stride = stride;
    this.#base = this.#ex.alloc(0);
  }

  reserve(capacity: number, used: number): void {
    const oldRows = this.#rowsAt(this.capacity);
    this.#persistent(capacity);
    const newRows = this.#rowsAt(capacity);
    // Scales stay at the base and only extend; the rows shift up past the longer scales.
    new Uint8Array(this.#ex.memory.buffer).copyWithin(
      newRows,
      oldRows,
      oldRows + used * this.#stride,
    );
    this.capacity = capacity;
  }

  rows(): Int8Array {
    const at = this.#rowsAt(this.capacity);
    return new Int8Array(this.#ex.memory.buffer, at, this.capacity * this.#stride);
  }

  scales(): Float32Array {
    return new Float32Array(this.#ex.memory.buffer, this.#base, this.capacity);
  }

  scores(query: Int8Array, n: number): Float32Array {
    const ex = this.#ex;
    this.#persistent(this.capacity);
    const q = ex.alloc(this.#stride * 2);
    const out = ex.alloc(n * 4);
    new Int16Array(ex.memory.buffer, q, this.#stride).set(query);
    ex.i8Scores(q, this.#rowsAt(this.capacity), this.#base, n, this.#stride, out);
    return new Float32Array(ex.memory.buffer, out, n).slice();
  }

  best(query: Int8Array, n: number, k: number): [number, number][] {
    const ex = this.#ex;
    this.#persistent(this.capacity);
    const size = Math.min(k, n);
    const q = ex.alloc(this.#stride * 2);
    const heapScores = ex.alloc(size * 4);
    const heapRows = ex.alloc(size * 4);
    new Int16Array(ex.memory.buffer, q, this.#stride).set(query);
    const at = this.#rowsAt(this.capacity);
    const count = ex.i8TopK(q, at, this.#base, n, this.#stride, size, heapScores, heapRows);
    const scores = new Float32Array(ex.memory.buffer, heapScores, count);
    const slots = new Int32Array(ex.memory.buffer, heapRows, count);
    return Array.from(slots, (slot, i) => [slot, scores[i]!]);
  }

  bytes(): number {
    return this.#ex.memory.buffer.byteLength;
  }

  #rowsAt(capacity: number): number {
    return this.#base + Math.ceil(capacity / 4) * 16;
  }

  /** Frees the scratch and (re)allocates the persistent region; may grow the memory. */
  #persistent(capacity: number): void {
    this.#ex.reset();
    this.#ex.alloc(this.#rowsAt(capacity) - this.#base + capacity * this.#stride);
  }
}

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
    return last;
  }

  scores(query: Float32Array): Float32Array {
    const qScale = this.#quantize(query, "score");
    const out = this.#storage.scores(this.#scratch, this.#size);
    for (let i = 0; i < out.length; i++) out[i] = out[i]! * qScale;
    return out;
  }

  topK(query: Float32Array, k: number): ScoredSlot[] {
    if (!Number.isInteger(k) || k < 0) {
      throw new RangeError(`Cannot select top k: k must be a non-negative integer, got ${k}`);
    }
    const qScale = this.#quantize(query, "score");
    if (k === 0 || this.#size === 0) return [];
    const best = this.#storage.best(this.#scratch, this.#size, k).sort(byRank);
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
