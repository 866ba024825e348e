/**
 * Hot loops of the memory layer: batch cosine / dot scoring, top-k, and character-bigram
 * Jaccard, in AssemblyScript (wasm/hot_loops.wasm, SIMD) with a plain TypeScript twin of
 * each function. The wasm bytes are a raw import, so the module works from a bundle or a
 * compiled binary without reading files.
 *
 * ```ts
 * const hot = loadHotLoops();                       // wasm; { implementation: "ts" } to fall back
 * const set = hot.createVectorSet(300);
 * set.addMany(vectors);
 * const best = set.topK(query, { k: 10 });
 * const same = hot.bigramJaccard("张三丰", "张三") > 0.75;
 *
 * const docs = createQuantizedVectorSet(512, { capacity: 100_000 }); // int8, ~¼ of float32
 * const slot = docs.add(normalised);
 * const hits = docs.topK(normalisedQuery, 10);      // [{ slot, score }], approximate cosine
 * ```
 * @module
 */
import wasmBytes from "./hot_loops.wasm" with { type: "bytes" };
import type {
  HotLoops,
  Implementation,
  QuantizedVectorSet,
  QuantizedVectorSetOptions,
} from "./_types.ts";
import { createTsHotLoops } from "./_ts.ts";
import { createWasmHotLoops } from "./_wasm.ts";
import { createQuantizedSet } from "./_quantized.ts";

export type {
  HotLoops,
  Implementation,
  Metric,
  QuantizedVectorSet,
  QuantizedVectorSetOptions,
  ScoredIndex,
  ScoredSlot,
  TopKNearOptions,
  TopKOptions,
  VectorSet,
} from "./_types.ts";
export {
  bigramJaccardBatchTs,
  bigramJaccardTs,
  bigramKeysTs,
  cosineScoresTs,
  dotScoresTs,
  hammingTs,
  i8ScoresTs,
  i8Stride,
  nearestRowsTs,
  quantizeI8,
  selectTopK,
  signCodeBytes,
  signCodeTs,
  topKTs,
} from "./twin.ts";

/** Options of `loadHotLoops`. */
export interface HotLoopsOptions {
  /** "wasm" (default) or "ts", the plain TypeScript twin. */
  implementation?: Implementation;
}

/**
 * Loads the hot loops synchronously. The wasm module is compiled on each call (it is ~4 KB,
 * well under a millisecond); keep the result. Throws `WebAssembly.CompileError` if the
 * runtime lacks wasm SIMD; pass `{ implementation: "ts" }` there.
 */
export function loadHotLoops(options: HotLoopsOptions = {}): HotLoops {
  const implementation = options.implementation ?? "wasm";
  switch (implementation) {
    case "ts":
      return createTsHotLoops();
    case "wasm":
      return createWasmHotLoops(new WebAssembly.Module(wasmBytes));
    default:
      throw new RangeError(`Cannot load hot loops: unknown implementation "${implementation}"`);
  }
}

/**
 * Creates an empty int8 scalar-quantized vector set of dimension `dim` (see
 * `QuantizedVectorSet`); `capacity` reserves room up front. The "wasm" set owns a wasm
 * instance of its own. Throws `RangeError` on a bad `dim`, `capacity` or implementation.
 */
export function createQuantizedVectorSet(
  dim: number,
  options: QuantizedVectorSetOptions = {},
): QuantizedVectorSet {
  return createQuantizedSet(() => new WebAssembly.Module(wasmBytes), dim, options);
}
