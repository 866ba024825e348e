/**
 * The wasm implementation of `HotLoops`: copies inputs into linear memory, runs a kernel and
 * copies the results out. Every `alloc` may grow the memory, which detaches earlier views, so
 * views are created only after the last `alloc` of a call.
 * @module
 */
import type { HotLoops, Metric } from "./_types.ts";
import { BaseVectorSet } from "./_vector_set.ts";
import { assertDim, assertShape, selectTopK } from "./twin.ts";

type VectorKernel = (q: number, m: number, n: number, dim: number, out: number) => void;

/** The exports of hot_loops.wasm (see wasm/assembly/index.ts); addresses are byte offsets. */
export interface HotLoopsExports {
  memory: WebAssembly.Memory;
  alloc(bytes: number): number;
  reset(): void;
  cosineBatch: VectorKernel;
  cosineBatchSimd: VectorKernel;
  dotBatch: VectorKernel;
  dotBatchSimd: VectorKernel;
  sumBytes(ptr: number, bytes: number): number;
  i8Scores(q: number, rows: number, scales: number, n: number, stride: number, out: number): void;
  i8TopK(
    q: number,
    rows: number,
    scales: number,
    n: number,
    stride: number,
    k: number,
    heapScores: number,
    heapRows: number,
  ): number;
  i8TopKOf(
    q: number,
    rows: number,
    scales: number,
    slots: number,
    m: number,
    stride: number,
    k: number,
    heapScores: number,
    heapRows: number,
  ): number;
  signCodes(rows: number, n: number, stride: number, codes: number, codeBytes: number): void;
  hammingScan(query: number, codes: number, n: number, codeBytes: number, out: number): void;
  nearestRows(
    distances: number,
    n: number,
    maxDistance: number,
    counts: number,
    p: number,
    out: number,
  ): number;
  bigramKeys(textPtr: number, len: number, outPtr: number): number;
  jaccardSorted(aPtr: number, aLen: number, bPtr: number, bLen: number): number;
  bigramJaccardBatch(
    queryKeysPtr: number,
    queryLen: number,
    textPtr: number,
    offsetsPtr: number,
    n: number,
    longest: number,
    outPtr: number,
  ): void;
}

const FUNCTIONS = [
  "alloc",
  "reset",
  "cosineBatch",
  "cosineBatchSimd",
  "dotBatch",
  "dotBatchSimd",
  "sumBytes",
  "i8Scores",
  "i8TopK",
  "i8TopKOf",
  "signCodes",
  "hammingScan",
  "nearestRows",
  "bigramKeys",
  "jaccardSorted",
  "bigramJaccardBatch",
] as const;

/** Instantiates `module` and checks that it has the exports the loader calls. */
export function instantiateHotLoops(module: WebAssembly.Module): HotLoopsExports {
  const exports: WebAssembly.Exports = new WebAssembly.Instance(module, {}).exports;
  if (!(exports.memory instanceof WebAssembly.Memory)) {
    throw new TypeError('Cannot load hot_loops.wasm: export "memory" is missing');
  }
  for (const name of FUNCTIONS) {
    if (typeof exports[name] !== "function") {
      throw new TypeError(`Cannot load hot_loops.wasm: export "${name}" is not a function`);
    }
  }
  return exports as unknown as HotLoopsExports;
}

/** Runs one vector kernel over a matrix already at `matPtr`; `query` is copied in. */
function scoreResident(
  ex: HotLoopsExports,
  kernel: VectorKernel,
  query: Float32Array,
  n: number,
): Float32Array {
  const dim = query.length;
  ex.reset();
  const m = ex.alloc(n * dim * 4);
  const q = ex.alloc(dim * 4);
  const out = ex.alloc(n * 4);
  new Float32Array(ex.memory.buffer, q, dim).set(query);
  kernel(q, m, n, dim, out);
  return new Float32Array(ex.memory.buffer, out, n).slice();
}

function kernelOf(ex: HotLoopsExports, metric: Metric | undefined): VectorKernel {
  return metric === "dot" ? ex.dotBatchSimd : ex.cosineBatchSimd;
}

function scoreMatrix(
  ex: HotLoopsExports,
  metric: Metric | undefined,
  query: Float32Array,
  matrix: Float32Array,
): Float32Array {
  const n = assertShape(query, matrix);
  ex.reset();
  const m = ex.alloc(matrix.length * 4);
  new Float32Array(ex.memory.buffer, m, matrix.length).set(matrix);
  return scoreResident(ex, kernelOf(ex, metric), query, n);
}

function writeUnits(ex: HotLoopsExports, ptr: number, text: string): void {
  const units = new Uint16Array(ex.memory.buffer, ptr, text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
}

/** Writes `text` and its sorted keys after the current allocations; returns [keysPtr, count]. */
function keysOf(ex: HotLoopsExports, text: string): [number, number] {
  const t = ex.alloc(text.length * 2);
  const keys = ex.alloc(Math.max(1, text.length) * 8);
  writeUnits(ex, t, text);
  return [keys, ex.bigramKeys(t, text.length, keys)];
}

function jaccard(ex: HotLoopsExports, a: string, b: string): number {
  ex.reset();
  const [ka, na] = keysOf(ex, a.toLowerCase());
  const [kb, nb] = keysOf(ex, b.toLowerCase());
  return ex.jaccardSorted(ka, na, kb, nb);
}

function jaccardBatch(
  ex: HotLoopsExports,
  query: string,
  candidates: readonly string[],
): Float32Array {
  const n = candidates.length;
  let total = 0;
  for (const c of candidates) total += c.length;
  ex.reset();
  const [qKeys, qLen] = keysOf(ex, query.toLowerCase());
  const offsets = ex.alloc((n + 1) * 4);
  const out = ex.alloc(n * 4);
  const writer = new LowerCaseWriter(ex, total);
  const starts = new Uint32Array(n + 1);
  for (let k = 0; k < n; k++) {
    starts[k] = writer.length;
    writer.write(candidates[k]!);
  }
  starts[n] = writer.length;
  new Uint32Array(ex.memory.buffer, offsets, n + 1).set(starts);
  let longest = 1;
  for (let k = 0; k < n; k++) longest = Math.max(longest, starts[k + 1]! - starts[k]!);
  // The kernel allocates its scratch after the text, which may grow memory: read a new view.
  ex.bigramJaccardBatch(qKeys, qLen, writer.base, offsets, n, longest, out);
  return new Float32Array(ex.memory.buffer, out, n).slice();
}

/**
 * Whether `toLowerCase` may change UTF-16 unit `c`. Outside A-Z it answers "no" only inside
 * windows with no cased letters (CJK, Hangul, private use...): a test checks every unit of
 * those windows against the runtime. Surrogates say "yes": astral scripts have cases.
 */
export function mayChangeWhenLowered(c: number): boolean {
  if (c < 0x80) return c >= 0x41 && c <= 0x5a;
  return !((c >= 0x2d00 && c < 0xa640) || (c >= 0xa800 && c < 0xd800) ||
    (c >= 0xe000 && c < 0xff00));
}

/**
 * Appends lower-cased texts as UTF-16 units to the last allocation, which it extends in
 * place when lower-casing lengthens a text. Copying and checking for letters with a case in
 * one pass saves calling `toLowerCase` on texts it would not change (most Chinese text).
 */
class LowerCaseWriter {
  readonly base: number;
  length = 0;
  #ex: HotLoopsExports;
  #capacity: number;
  #units: Uint16Array;

  constructor(ex: HotLoopsExports, capacity: number) {
    this.#ex = ex;
    this.#capacity = Math.ceil(Math.max(capacity, 1) / 8) * 8; // alloc rounds to 16 bytes
    this.base = ex.alloc(this.#capacity * 2);
    this.#units = new Uint16Array(ex.memory.buffer, this.base, this.#capacity);
  }

  write(text: string): void {
    const start = this.length;
    this.#reserve(text.length);
    const units = this.#units;
    let cased = false;
    let pos = start;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      units[pos++] = c;
      if (mayChangeWhenLowered(c)) cased = true;
    }
    this.length = pos;
    if (!cased) return;
    const lower = text.toLowerCase();
    if (lower === text) return;
    this.length = start;
    this.#reserve(lower.length);
    for (let i = 0; i < lower.length; i++) this.#units[this.length++] = lower.charCodeAt(i);
  }

  #reserve(units: number): void {
    if (this.length + units <= this.#capacity) return;
    const more = Math.ceil(Math.max(units, this.#capacity) / 8) * 8;
    const at = this.#ex.alloc(more * 2);
    if (at !== this.base + this.#capacity * 2) {
      throw new Error("Cannot extend the text region: it is not the last allocation");
    }
    this.#capacity += more;
    this.#units = new Uint16Array(this.#ex.memory.buffer, this.base, this.#capacity);
  }
}

class WasmVectorSet extends BaseVectorSet {
  #ex: HotLoopsExports;

  constructor(ex: HotLoopsExports, dim: number) {
    super(dim);
    this.#ex = ex;
  }

  // The rows live at the start of the instance's heap: every call resets and re-reserves them.
  protected store(rows: Float32Array, first: number): void {
    const ex = this.#ex;
    ex.reset();
    const m = ex.alloc((first * this.dim + rows.length) * 4);
    new Float32Array(ex.memory.buffer, m + first * this.dim * 4, rows.length).set(rows);
  }

  protected row(index: number, size: number): Float32Array {
    const ex = this.#ex;
    ex.reset();
    const m = ex.alloc(size * this.dim * 4);
    return new Float32Array(ex.memory.buffer, m + index * this.dim * 4, this.dim).slice();
  }

  protected scoreRows(query: Float32Array, metric: Metric, size: number): Float32Array {
    return scoreResident(this.#ex, kernelOf(this.#ex, metric), query, size);
  }
}

/** Builds the wasm `HotLoops` over one instance of `module`; vector sets get their own. */
export function createWasmHotLoops(module: WebAssembly.Module): HotLoops {
  const ex = instantiateHotLoops(module);
  return {
    implementation: "wasm",
    cosineScores: (query, matrix) => scoreMatrix(ex, "cosine", query, matrix),
    dotScores: (query, matrix) => scoreMatrix(ex, "dot", query, matrix),
    topK: (query, matrix, options) =>
      selectTopK(scoreMatrix(ex, options.metric, query, matrix), options.k),
    bigramJaccard: (a, b) => jaccard(ex, a, b),
    bigramJaccardBatch: (query, candidates) => jaccardBatch(ex, query, candidates),
    createVectorSet: (dim) => {
      assertDim(dim);
      return new WasmVectorSet(instantiateHotLoops(module), dim);
    },
  };
}
