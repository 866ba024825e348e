/**
 * Benchmarks of wasm/: how much faster the wasm kernels are than their TypeScript twins.
 * Each figure times both implementations in the same run, alternating them so that machine
 * noise hits both alike, and reports the ratio of the medians (TS time / wasm time).
 * @module
 */
import { type HotLoops, loadHotLoops } from "../../wasm/mod.ts";

/** One benchmark figure, as the harness prints it. */
export interface Figure {
  value: number;
  unit: string;
}

const VECTORS = 20_000;
const DIM = 300;
const TEXTS = 20_000;

/** mulberry32: seeded, so every run scores the same data. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/** Median time of `ts` over median time of `wasm`, runs alternating after a warm-up. */
function speedup(ts: () => unknown, wasm: () => unknown, runs: number): number {
  for (let i = 0; i < 3; i++) {
    ts();
    wasm();
  }
  const tsTimes: number[] = [];
  const wasmTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    let start = performance.now();
    ts();
    tsTimes.push(performance.now() - start);
    start = performance.now();
    wasm();
    wasmTimes.push(performance.now() - start);
  }
  return Math.round((median(tsTimes) / median(wasmTimes)) * 100) / 100;
}

/** One query against 20,000 resident vectors of dimension 300 (cosine), TS over wasm. */
function cosineSpeedup(wasm: HotLoops, ts: HotLoops): number {
  const random = rng(42);
  const rows = Float32Array.from({ length: VECTORS * DIM }, () => random() * 2 - 1);
  const query = Float32Array.from({ length: DIM }, () => random() * 2 - 1);
  const wasmSet = wasm.createVectorSet(DIM);
  const tsSet = ts.createVectorSet(DIM);
  wasmSet.addMany(rows);
  tsSet.addMany(rows);
  return speedup(() => tsSet.cosineScores(query), () => wasmSet.cosineScores(query), 25);
}

/** One query against 20,000 Chinese texts of 10-50 characters (bigram Jaccard), TS over wasm. */
function jaccardSpeedup(wasm: HotLoops, ts: HotLoops): number {
  const random = rng(7);
  const text = () => {
    const length = 10 + Math.floor(random() * 41);
    return String.fromCharCode(
      ...Array.from({ length }, () => 0x4e00 + Math.floor(random() * random() * 3000)),
    );
  };
  const candidates = Array.from({ length: TEXTS }, text);
  const query = candidates[123]!;
  return speedup(
    () => ts.bigramJaccardBatch(query, candidates),
    () => wasm.bigramJaccardBatch(query, candidates),
    15,
  );
}

/** Figures for the bench harness (`deno task bench`): each resolves in a few seconds. */
export const figures: Record<string, () => Promise<Figure>> = {
  "cosine_wasm_speedup": () =>
    Promise.resolve({
      value: cosineSpeedup(loadHotLoops(), loadHotLoops({ implementation: "ts" })),
      unit: "x",
    }),
  "jaccard_wasm_speedup": () =>
    Promise.resolve({
      value: jaccardSpeedup(loadHotLoops(), loadHotLoops({ implementation: "ts" })),
      unit: "x",
    }),
};
