/**
 * The real sentence model (the development copy of `deno task model:dev`; the default model,
 * or `$HOMEAGENT_BENCH_MODEL`), through the embedder the daemon uses (Worker, queue; cache off so
 * every text is computed):
 * - `embed_onnx_query_ms_p50`: one short chat query, p50 of 60 after a warm-up, with
 *   `embed_onnx_query_cpu_ms`, the CPU time each took (both threads; less moved by a busy machine);
 * - `embed_onnx_query_busy_ms_p50` / `_p95`: the same query, one every ~100 ms, while 48 stored
 *   documents (~200 characters each) are embedded at background priority: the wait behind a
 *   background call plus the query's own run;
 * - `embed_onnx_texts_per_s`: short bilingual chat turns, batches of 64;
 * - `reembed_10k_s`: 10,000 documents stored in the hash space re-embedded into the model's
 *   (DocStore.reembedStale at background priority, as after an install);
 * - `reembed_stall_ms_p99` / `reembed_stall_ms_p99_inline`: how late a 10 ms timer fires on the
 *   event loop while 500 documents are re-embedded, with the model in its Worker and inline.
 * Native onnxruntime where it loads (the bench has FFI permission), as the daemon runs it;
 * `HOMEAGENT_BENCH_ENGINE=wasm` measures onnxruntime-web's wasm build instead.
 * Without the model each figure reports an error saying how to get it.
 * @module
 */
import { type Embedder, silentLogger } from "../../core/mod.ts";
import { systemClock } from "../../adapters/mod.ts";
import {
  createHashEmbedder,
  createTextAnalyzer,
  DEFAULT_MODEL,
  DocStore,
  loadOnnxEmbedder,
  type OnnxEmbedder,
} from "../../memory/mod.ts";
import { readInstalledModel } from "../../memory/embed/model_store.ts";
import { devModelsDir } from "../fixtures/dev_model.ts";
import process from "node:process";
import { type Figure, type FigureFn, quantile, round } from "./_figure.ts";

const MODEL = Deno.env.get("HOMEAGENT_BENCH_MODEL") ?? DEFAULT_MODEL;
const ENGINE = Deno.env.get("HOMEAGENT_BENCH_ENGINE") === "wasm" ? "wasm" : "auto";
const ZH = ["我喜欢吃苹果", "今天下雨了，记得带伞", "张三下周去北京出差", "帮我把会议改到周五下午"];
const EN = ["remind me to call Alice tomorrow", "the build failed again on CI", "I love apples"];

function turns(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${ZH[i % ZH.length]} ${EN[i % EN.length]} #${i}`);
}

/** The bench model, uncached, in a Worker unless `worker` is false. */
async function openModel(worker = true): Promise<OnnxEmbedder> {
  const installed = await readInstalledModel(devModelsDir(), MODEL).catch(() => {
    throw new Error(
      `model "${MODEL}" is not in ${devModelsDir()}: run deno task model:dev ${MODEL}`,
    );
  });
  const { dir, manifest } = installed;
  return await loadOnnxEmbedder({
    modelPath: `${dir}/model.onnx`,
    vocabPath: `${dir}/${manifest.tokenizer.file}`,
    name: MODEL,
    pooling: manifest.pooling,
    prefix: manifest.prefix,
    maxTokens: manifest.maxTokens,
    logger: silentLogger,
    worker,
    cacheSize: 0,
    engine: ENGINE,
  });
}

/** Long enough for the idle warm-up of a fresh session to end on a busy machine. */
const WARM_UP_WAIT_MS = 4000;

/** Wall p50, and the process's CPU time per query (both threads): steadier on a busy machine. */
async function queryFigures(): Promise<Record<string, Figure>> {
  const embedder = await openModel();
  try {
    const queries = ["我的猫叫什么名字？", "What did I tell you about my cat?"];
    // A chat's query comes once the daemon is up, after the Worker's idle warm-up (a few short
    // runs, _onnx_runner.ts warmUp); measured right away, each query waited behind one of them.
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_WAIT_MS));
    for (let i = 0; i < 10; i++) await embedder.embed([queries[i % 2]!]);
    const times: number[] = [];
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now();
      await embedder.embed([queries[i % 2]!]);
      times.push(performance.now() - t0);
    }
    const cpu = process.cpuUsage(cpu0);
    return {
      "embed_onnx_query_ms_p50": { value: round(quantile(times, 0.5), 2), unit: "ms" },
      "embed_onnx_query_cpu_ms": {
        value: round((cpu.user + cpu.system) / 1000 / 60, 2),
        unit: "ms",
      },
    };
  } finally {
    await embedder.close();
  }
}

/** A query's latency while documents are embedded in the background (as after an install). */
async function busyQueryFigures(): Promise<Record<string, Figure>> {
  const embedder = await openModel();
  try {
    const queries = ["我的猫叫什么名字？", "What did I tell you about my cat?"];
    // A chat's query comes once the daemon is up, after the Worker's idle warm-up (a few short
    // runs, _onnx_runner.ts warmUp); measured right away, each query waited behind one of them.
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_WAIT_MS));
    for (let i = 0; i < 10; i++) await embedder.embed([queries[i % 2]!]);
    const docs = Array.from({ length: 48 }, (_, i) => turns(4).join("。") + ` (${i})`);
    let busy = true;
    const background = embedder.embed(docs, { priority: "background" }).finally(() => busy = false);
    const times: number[] = [];
    while (busy) {
      const t0 = performance.now();
      await embedder.embed([queries[times.length % 2]!]);
      times.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await background;
    return {
      "embed_onnx_query_busy_ms_p50": { value: round(quantile(times, 0.5), 1), unit: "ms" },
      "embed_onnx_query_busy_ms_p95": { value: round(quantile(times, 0.95), 1), unit: "ms" },
    };
  } finally {
    await embedder.close();
  }
}

async function throughputFigure(): Promise<Figure> {
  const embedder = await openModel();
  try {
    const texts = turns(640);
    await embedder.embed(texts.slice(0, 64));
    const t0 = performance.now();
    for (let at = 0; at < texts.length; at += 64) {
      await embedder.embed(texts.slice(at, at + 64), { priority: "background" });
    }
    return { value: round(texts.length / ((performance.now() - t0) / 1000), 0), unit: "texts/s" };
  } finally {
    await embedder.close();
  }
}

/** A store of `count` documents in the hash space, reopened in the model's; the seconds to move it. */
async function reembedSeconds(count: number, worker: boolean, onStart?: () => void) {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-bench-reembed-" });
  const analyzer = await createTextAnalyzer();
  const open = (embedder: Embedder) =>
    DocStore.open({ dir, embedder, analyzer, clock: systemClock, logger: silentLogger });
  const embedder = await openModel(worker);
  try {
    const hashed = await open(createHashEmbedder());
    const docs = turns(count).map((content, i) => ({ content, source: "bench", createdAt: i }));
    await hashed.insertMany(docs, { batch: 1000, sync: false });
    hashed.close();
    const store = await open(embedder);
    try {
      onStart?.();
      const t0 = performance.now();
      await store.reembedStale({ priority: "background" });
      return (performance.now() - t0) / 1000;
    } finally {
      store.close();
    }
  } finally {
    await embedder.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** p99 lateness of a 10 ms interval while 500 documents are re-embedded. */
async function stallFigure(worker: boolean): Promise<Figure> {
  const late: number[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;
  try {
    await reembedSeconds(500, worker, () => {
      let expected = performance.now() + 10;
      timer = setInterval(() => {
        const now = performance.now();
        late.push(Math.max(0, now - expected));
        expected = now + 10;
      }, 10);
    });
  } finally {
    clearInterval(timer);
  }
  return { value: round(quantile(late, 0.99), 1), unit: "ms" };
}

/** The figures of the real model. */
export const figures: Record<string, FigureFn> = {
  "embed_onnx_query_ms_p50": queryFigures,
  "embed_onnx_query_cpu_ms": queryFigures,
  "embed_onnx_query_busy_ms_p50": busyQueryFigures,
  "embed_onnx_query_busy_ms_p95": busyQueryFigures,
  "embed_onnx_texts_per_s": throughputFigure,
  "reembed_10k_s": async () => ({ value: round(await reembedSeconds(10_000, true), 1), unit: "s" }),
  "reembed_stall_ms_p99": () => stallFigure(true),
  "reembed_stall_ms_p99_inline": () => stallFigure(false),
};
