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
 * ```
 * @module
 */
import wasmBytes from "./hot_loops.wasm" with { type: "bytes" };
import type { HotLoops, Implementation } from "./_types.ts";
import { createTsHotLoops } from "./_ts.ts";
import { createWasmHotLoops } from "./_wasm.ts";

export type {
  HotLoops,
  Implementation,
  Metric,
  ScoredIndex,
  TopKOptions,
  VectorSet,
} from "./_types.ts";
export {
  bigramJaccardBatchTs,
  bigramJaccardTs,
  bigramKeysTs,
  cosineScoresTs,
  dotScoresTs,
  selectTopK,
  topKTs,
} from "./twin.ts";

/** Options of `loadHotLoops`. */
export interface HotLoopsOptions {
  /** "wasm" (default) or "ts", the plain TypeScript twin. */
  implementation?: Implementation;
}

/**
 * Loads the hot loops synchronously. The wasm module is compiled on each call (it is ~2.5 KB,
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
