/**
 * Where a `QuantizedVectorSet` keeps its bytes: int8 rows, their f32 scales and their 1-bit
 * sign codes, in the linear memory of a wasm instance of their own or in plain typed arrays
 * (the TypeScript twin), with the kernels that score them.
 * @module
 */
import type { Implementation } from "./_types.ts";
import type { HotLoopsExports } from "./_wasm.ts";
import { instantiateHotLoops } from "./_wasm.ts";
import {
  hammingTs,
  i8ScoresTs,
  nearestRowsTs,
  selectTopK,
  signCodeBytes,
  signCodeTs,
} from "./twin.ts";

/** Where the rows live. Views it returns are valid until the next `reserve`. */
export interface I8Storage {
  readonly implementation: Implementation;
  readonly capacity: number;
  /** Grows to hold at least `capacity` rows, keeping the first `used` rows and scales. */
  reserve(capacity: number, used: number): void;
  rows(): Int8Array;
  scales(): Float32Array;
  scores(query: Int8Array, n: number): Float32Array;
  /** The best `k` of `n` rows as [slot, f32 score] pairs, in no particular order. */
  best(query: Int8Array, n: number, k: number): [number, number][];
  /** The rows' sign codes (signCodeBytes(stride) each), after the rows. */
  codes(): Uint8Array;
  /** Writes the sign code of row `slot` from its int8 bytes. */
  encode(slot: number): void;
  /**
   * As `best`, over the `candidates` of `n` rows whose sign codes are nearest the query's
   * (Hamming distance; at the cut-off the lower rows) instead of all of them.
   */
  bestNear(query: Int8Array, n: number, k: number, candidates: number): [number, number][];
  bytes(): number;
}

export class TsStorage implements I8Storage {
  readonly implementation = "ts";
  capacity = 0;
  #stride: number;
  #codeBytes: number;
  #rows = new Int8Array(0);
  #scales = new Float32Array(0);
  #codes = new Uint8Array(0);

  constructor(stride: number) {
    this.#stride = stride;
    this.#codeBytes = signCodeBytes(stride);
  }

  reserve(capacity: number, used: number): void {
    const rows = new Int8Array(capacity * this.#stride);
    rows.set(this.#rows.subarray(0, used * this.#stride));
    const scales = new Float32Array(capacity);
    scales.set(this.#scales.subarray(0, used));
    const codes = new Uint8Array(capacity * this.#codeBytes);
    codes.set(this.#codes.subarray(0, used * this.#codeBytes));
    this.#rows = rows;
    this.#scales = scales;
    this.#codes = codes;
    this.capacity = capacity;
  }

  codes(): Uint8Array {
    return this.#codes;
  }

  encode(slot: number): void {
    const stride = this.#stride;
    const bytes = this.#codeBytes;
    signCodeTs(
      this.#rows.subarray(slot * stride, (slot + 1) * stride),
      this.#codes.subarray(slot * bytes, (slot + 1) * bytes),
    );
  }

  bestNear(query: Int8Array, n: number, k: number, candidates: number): [number, number][] {
    const code = new Uint8Array(this.#codeBytes);
    signCodeTs(query, code);
    const slots = nearestRowsTs(hammingTs(code, this.#codes, n), candidates);
    const stride = this.#stride;
    const rows = new Int8Array(slots.length * stride);
    const scales = new Float32Array(slots.length);
    slots.forEach((slot, i) => {
      rows.set(this.#rows.subarray(slot * stride, (slot + 1) * stride), i * stride);
      scales[i] = this.#scales[slot]!;
    });
    // Candidates are in ascending slot order, so ties by lower index are ties by lower slot.
    return selectTopK(i8ScoresTs(query, rows, scales, slots.length), k)
      .map((r) => [slots[r.index]!, r.score]);
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
 * [scales: capacity f32][rows: capacity × stride i8][codes: capacity × code bytes]; per-query
 * scratch follows them.
 */
export class WasmStorage implements I8Storage {
  readonly implementation = "wasm";
  capacity = 0;
  #ex: HotLoopsExports;
  #stride: number;
  #codeBytes: number;
  #base: number;

  constructor(module: WebAssembly.Module, stride: number) {
    this.#ex = instantiateHotLoops(module);
    this.#stride = stride;
    this.#codeBytes = signCodeBytes(stride);
    this.#base = this.#ex.alloc(0);
  }

  reserve(capacity: number, used: number): void {
    const oldRows = this.#rowsAt(this.capacity);
    const oldCodes = this.#codesAt(this.capacity);
    this.#persistent(capacity);
    // Scales stay at the base and only extend; rows and codes shift up, the highest first.
    const memory = new Uint8Array(this.#ex.memory.buffer);
    memory.copyWithin(this.#codesAt(capacity), oldCodes, oldCodes + used * this.#codeBytes);
    memory.copyWithin(this.#rowsAt(capacity), oldRows, oldRows + used * this.#stride);
    this.capacity = capacity;
  }

  rows(): Int8Array {
    const at = this.#rowsAt(this.capacity);
    return new Int8Array(this.#ex.memory.buffer, at, this.capacity * this.#stride);
  }

  scales(): Float32Array {
    return new Float32Array(this.#ex.memory.buffer, this.#base, this.capacity);
  }

  codes(): Uint8Array {
    const at = this.#codesAt(this.capacity);
    return new Uint8Array(this.#ex.memory.buffer, at, this.capacity * this.#codeBytes);
  }

  encode(slot: number): void {
    const rows = this.#rowsAt(this.capacity) + slot * this.#stride;
    const codes = this.#codesAt(this.capacity) + slot * this.#codeBytes;
    this.#ex.signCodes(rows, 1, this.#stride, codes, this.#codeBytes);
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
    return this.#pairs(heapScores, heapRows, count);
  }

  bestNear(query: Int8Array, n: number, k: number, candidates: number): [number, number][] {
    const ex = this.#ex;
    this.#persistent(this.capacity);
    const m = Math.min(candidates, n);
    const size = Math.min(k, m);
    const maxDistance = this.#codeBytes * 8;
    const q = ex.alloc(this.#stride * 2);
    const q8 = ex.alloc(this.#stride);
    const code = ex.alloc(this.#codeBytes);
    const distances = ex.alloc(n * 2);
    const counts = ex.alloc((maxDistance + 1) * 4);
    const slots = ex.alloc(m * 4);
    const heapScores = ex.alloc(size * 4);
    const heapRows = ex.alloc(size * 4);
    new Int16Array(ex.memory.buffer, q, this.#stride).set(query);
    new Int8Array(ex.memory.buffer, q8, this.#stride).set(query);
    ex.signCodes(q8, 1, this.#stride, code, this.#codeBytes);
    ex.hammingScan(code, this.#codesAt(this.capacity), n, this.#codeBytes, distances);
    ex.nearestRows(distances, n, maxDistance, counts, m, slots);
    const rows = this.#rowsAt(this.capacity);
    const count = ex.i8TopKOf(
      q,
      rows,
      this.#base,
      slots,
      m,
      this.#stride,
      size,
      heapScores,
      heapRows,
    );
    return this.#pairs(heapScores, heapRows, count);
  }

  bytes(): number {
    return this.#ex.memory.buffer.byteLength;
  }

  #pairs(heapScores: number, heapRows: number, count: number): [number, number][] {
    const scores = new Float32Array(this.#ex.memory.buffer, heapScores, count);
    const slots = new Int32Array(this.#ex.memory.buffer, heapRows, count);
    return Array.from(slots, (slot, i) => [slot, scores[i]!]);
  }

  #rowsAt(capacity: number): number {
    return this.#base + Math.ceil(capacity / 4) * 16;
  }

  #codesAt(capacity: number): number {
    return this.#rowsAt(capacity) + capacity * this.#stride;
  }

  /** Frees the scratch and (re)allocates the persistent region; may grow the memory. */
  #persistent(capacity: number): void {
    this.#ex.reset();
    this.#ex.alloc(this.#codesAt(capacity) - this.#base + capacity * this.#codeBytes);
  }
}
