/**
 * Memory I figures: `prune_1k_ms` (RelevanceContext prune of 1,000 events to 30),
 * `doc_query_p95_ms_10k` / `doc_query_p95_ms_100k` (DocStore hybrid query over 10,000 and
 * 100,000 documents, k = 3) and `doc_vectors_bytes_ratio` (resident bytes of the document
 * vectors over their raw float32 size, at 100,000 documents).
 */
import {
  type ContextEvent,
  type ContextSnapshot,
  RelevanceContext,
  silentLogger,
} from "../../core/mod.ts";
import { systemClock } from "../../adapters/mod.ts";
import {
  createHashEmbedder,
  createTextAnalyzer,
  DocStore,
  runMemoryEval,
} from "../../memory/mod.ts";
import { type Figure, quantile, round } from "./_figure.ts";

const EN = ("garden tomato rain weekend sister oslo nurse car tyres winter coffee tea train " +
  "holiday birthday dinner recipe doctor school homework football guitar concert book movie " +
  "cat dog fish bird mountain river beach city village market bread cheese apple orange")
  .split(" ");
const ZH = ("花园 番茄 下雨 周末 姐姐 护士 汽车 轮胎 冬天 咖啡 茶 火车 假期 生日 晚饭 菜谱 医生 " +
  "学校 作业 足球 吉他 音乐会 书 电影 猫 狗 鱼 鸟 山 河 海滩 城市 村子 市场 面包 苹果")
  .split(" ");

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function sentence(random: () => number, i: number): string {
  const zh = random() < 0.3;
  const words = zh ? ZH : EN;
  const n = 6 + Math.floor(random() * 10);
  const picked = Array.from({ length: n }, () => words[Math.floor(random() * words.length)]!);
  return zh ? `${picked.join("")}，第${i}次` : `Note ${i}: ${picked.join(" ")}`;
}

async function pruneFigure(): Promise<Figure> {
  const embedder = createHashEmbedder();
  const random = rng(7);
  const texts = Array.from({ length: 1000 }, (_, i) => sentence(random, i));
  const vectors = await embedder.embed(texts);
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    const events: ContextEvent[] = texts.map((input, i) => ({
      id: `e${i}`,
      role: "user",
      source: "cli",
      channel: "cli",
      input,
      timestamp: i,
      vector: { fingerprint: embedder.fingerprint, vector: vectors[i]! },
    }));
    const snapshot: ContextSnapshot = { version: 1, events };
    const context = await RelevanceContext.load({
      clock: systemClock,
      logger: silentLogger,
      embedder,
      store: {
        load: () => Promise.resolve({ snapshot, journal: [] }),
        save: () => Promise.resolve(),
      },
      archive: () => Promise.resolve(),
      topK: () => 30,
      debounceMs: 60_000,
    });
    const t0 = performance.now();
    await context.prune("what did my sister say about the winter holiday");
    runs.push(performance.now() - t0);
    await context.flush();
  }
  return { value: round(quantile(runs, 0.5), 2), unit: "ms" };
}

async function docQuery(count: number): Promise<{ p95: number; ratio: number }> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-bench-docs-" });
  const embedder = createHashEmbedder();
  const store = await DocStore.open({
    dir,
    embedder,
    analyzer: await createTextAnalyzer(),
    clock: systemClock,
    logger: silentLogger,
  });
  try {
    const random = rng(count);
    const docs = Array.from({ length: count }, (_, i) => ({
      content: sentence(random, i),
      source: "bench",
      createdAt: i,
    }));
    await store.insertMany(docs, { batch: 1000, sync: false });
    const queries = Array.from({ length: 200 }, (_, i) => sentence(random, i).slice(0, 40));
    for (const q of queries.slice(0, 20)) await store.query(q, { k: 3 }); // warm up
    const times: number[] = [];
    for (const q of queries) {
      const t0 = performance.now();
      await store.query(q, { k: 3 });
      times.push(performance.now() - t0);
    }
    const raw = store.size() * embedder.dim * 4;
    return { p95: quantile(times, 0.95), ratio: store.vectorBytes() / raw };
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function docFigures(): Promise<Record<string, Figure>> {
  const small = await docQuery(10_000);
  const large = await docQuery(100_000);
  return {
    doc_query_p95_ms_10k: { value: round(small.p95, 2), unit: "ms" },
    doc_query_p95_ms_100k: { value: round(large.p95, 2), unit: "ms" },
    doc_vectors_bytes_ratio: { value: round(large.ratio, 3), unit: "x" },
  };
}

const SHARED_EVAL = new URL("../../../shared/eval/", import.meta.url).pathname;
const FIXTURE_EVAL = new URL("../fixtures/eval/", import.meta.url).pathname;

/** Turns per second through the real ingest path of `eval memory` (MADial zh + en when present). */
async function ingestFigure(): Promise<Figure> {
  const analyzer = await createTextAnalyzer();
  const sets: [string, string][] = [];
  for (const lang of ["zh", "en"]) {
    const dir = `${SHARED_EVAL}madial_${lang}/`;
    try {
      await Deno.stat(`${dir}corpus.jsonl`);
      sets.push([`${dir}corpus.jsonl`, `${dir}questions.jsonl`]);
    } catch {
      // the development set is beside the checkout; fall back to the built-in one
    }
  }
  if (sets.length === 0) {
    sets.push([`${FIXTURE_EVAL}small_corpus.jsonl`, `${FIXTURE_EVAL}small_questions.jsonl`]);
  }
  let turns = 0;
  let seconds = 0;
  for (const [corpusPath, questionsPath] of sets) {
    const result = await runMemoryEval({
      corpusPath,
      questionsPath,
      ks: [10],
      embedder: createHashEmbedder({ analyzer }),
      analyzer,
      clock: systemClock,
      logger: silentLogger,
      contextSize: 30,
    });
    turns += result.turns;
    seconds += result.turns / result.ingest_turns_per_s;
  }
  return { value: Math.round(turns / seconds), unit: "turns/s" };
}

/** Figures of this module. */
export const figures = {
  "prune_1k_ms": pruneFigure,
  "eval_ingest_turns_per_s": ingestFigure,
  "doc_query_p95_ms_10k": docFigures,
  "doc_query_p95_ms_100k": docFigures,
  "doc_vectors_bytes_ratio": docFigures,
};
