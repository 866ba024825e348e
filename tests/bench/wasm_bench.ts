/**
 * Benchmarks of wasm/: how much faster the wasm kernels are than their TypeScript twins, the
 * scan rates of the cosine kernels next to the machine's memory-read rate, and the int8 top-k.
 * Timed variants alternate within one run so that machine noise hits them alike.
 * @module
 */
import wasmBytes from "../../wasm/hot_loops.wasm" with { type: "bytes" };
import { createQuantizedVectorSet, type HotLoops, loadHotLoops } from "../../wasm/mod.ts";
import { type HotLoopsExports, instantiateHotLoops } from "../../wasm/_wasm.ts";
import { cosineScoresTs } from "../../wasm/twin.ts";
import { type Figure, type FigureFn, quantile, round } from "./_figure.ts";
import { rng } from "../fakes/random.ts";

const VECTORS = 20_000;
const DIM = 300;
const TEXTS = 20_000;

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

const SCAN_N = 100_000;
const SCAN_DIM = 512;

/** Median wall time (ms) of each variant over `rounds` rounds, variants alternating. */
function medians(variants: Record<string, () => unknown>, rounds: number): Record<string, number> {
  const times: Record<string, number[]> = {};
  for (const [name, fn] of Object.entries(variants)) {
    fn(); // warm-up: tier-up and first touch
    times[name] = [];
  }
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of Object.entries(variants)) {
      const start = performance.now();
      fn();
      times[name]!.push(performance.now() - start);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([name, t]) => [name, median(t)]));
}

/** Fills `count` f32 at `ptr` with uniform values in [-1, 1) from a seeded generator. */
function fillRandom(ex: HotLoopsExports, ptr: number, count: number, seed: number): void {
  const random = rng(seed);
  const view = new Float32Array(ex.memory.buffer, ptr, count);
  for (let i = 0; i < count; i++) view[i] = random() * 2 - 1;
}

/**
 * One query against 100,000 float32 vectors of dim 512 (205 MB, in one wasm memory, read by
 * all four variants): the rate at which each cosine kernel scans the bytes, and a plain
 * sequential read (wasm SIMD sum, four accumulators) of the same bytes as the physical limit.
 */
function scanRates(): Record<string, Figure> {
  const ex = instantiateHotLoops(new WebAssembly.Module(wasmBytes));
  const count = SCAN_N * SCAN_DIM;
  const bytes = count * 4;
  const mat = ex.alloc(bytes);
  const q = ex.alloc(SCAN_DIM * 4);
  const out = ex.alloc(SCAN_N * 4);
  fillRandom(ex, mat, count, 21);
  fillRandom(ex, q, SCAN_DIM, 22);
  const matrix = new Float32Array(ex.memory.buffer, mat, count);
  const query = new Float32Array(ex.memory.buffer, q, SCAN_DIM).slice();
  const ms = medians({
    memory_read_gbps: () => ex.sumBytes(mat, bytes),
    cosine_wasm_simd_gbps: () => ex.cosineBatchSimd(q, mat, SCAN_N, SCAN_DIM, out),
    cosine_wasm_gbps: () => ex.cosineBatch(q, mat, SCAN_N, SCAN_DIM, out),
    cosine_ts_gbps: () => cosineScoresTs(query, matrix),
  }, 9);
  const rates: Record<string, Figure> = {};
  for (const [name, t] of Object.entries(ms)) {
    rates[name] = { value: round(bytes / t / 1e6, 2), unit: "GB/s" };
  }
  return rates;
}

/** p95 of `topK(query, 10)` over 100,000 int8 vectors of dim 512 (random data). */
function topKInt8P95(): number {
  const random = rng(23);
  const set = createQuantizedVectorSet(SCAN_DIM, { capacity: SCAN_N });
  const v = new Float32Array(SCAN_DIM);
  const fill = () => {
    for (let j = 0; j < SCAN_DIM; j++) v[j] = random() * 2 - 1;
  };
  for (let i = 0; i < SCAN_N; i++) {
    fill();
    set.add(v); // scale-invariant: int8 quantization needs no normalisation to be timed
  }
  const samples: number[] = [];
  for (let i = 0; i < 60; i++) {
    fill();
    const start = performance.now();
    set.topK(v, 10);
    if (i >= 5) samples.push(performance.now() - start);
  }
  return round(quantile(samples, 0.95), 2);
}

const scanFigures: FigureFn = () => Promise.resolve(scanRates());

/** Figures for the bench harness (`deno task bench`): each resolves in a few seconds. */
export const figures: Record<string, FigureFn> = {
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
  ...Object.fromEntries(
    ["cosine_ts_gbps", "cosine_wasm_gbps", "cosine_wasm_simd_gbps", "memory_read_gbps"].map(
      (name) => [name, scanFigures],
    ),
  ),
  "int8_topk_ms_100k": () => Promise.resolve({ value: topKInt8P95(), unit: "ms" }),
};
