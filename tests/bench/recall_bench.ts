/**
 * `recall_p95_ms_100k` (issues 14 and 15): the automatic recall of a chat turn — the daemon's
 * own `MemoryTiers.recall` (the query from the window's recent turns, embedded by the real
 * sentence model, the graph's "[Memory Index]", the documents' hybrid query, the pooled ranking,
 * the knowledge base) over a home of 100,000 documents and 100,000 entities with 1,000,000
 * relations — p95 of 60 turns, each a new input recorded in the window first, as a turn does;
 * `recall_p50_ms_100k` is their median; `recall_first_ms_100k` the first turn, which loads the
 * tiers' int8 vector matrices (`recall_vectors_mb_100k` held after, `_idle_` before). The
 * `_hash` figures are the same over a home without a model (the hash space a new home starts
 * in: the query embedded on the main thread, the words-only ranking). The documents and entities carry real model vectors:
 * 400 distinct sentences embedded by the model, each stored under many numbered copies (and
 * each entity under one of them), since embedding 200,000 texts would take the bench hours.
 * @module
 */
import process from "node:process";
import { type ContextEvent, type Embedder, type Input, silentLogger } from "../../core/mod.ts";
import { systemClock } from "../../adapters/mod.ts";
import {
  createHashEmbedder,
  createTextAnalyzer,
  DEFAULT_MODEL,
  DocStore,
  ensureHome,
  GraphDB,
  type HomePaths,
  loadInstalledEmbedder,
  openMemory,
  registerMemoryDefaults,
} from "../../memory/mod.ts";
import { devModelsDir } from "../fixtures/dev_model.ts";
import { openTestRegistry } from "../fakes/config.ts";
import { type Figure, quantile, round } from "./_figure.ts";
import { addRelations, names, rng } from "./_graph_corpus.ts";

const MODEL = Deno.env.get("HOMEAGENT_BENCH_MODEL") ?? DEFAULT_MODEL;
const TOPICS = [
  "猫",
  "花园",
  "生日",
  "火车",
  "咖啡",
  "医生",
  "足球",
  "音乐会",
  "cat",
  "garden",
  "birthday",
  "train",
  "coffee",
  "doctor",
  "football",
  "concert",
  "sister",
  "holiday",
];

/**
 * `HOMEAGENT_BENCH_TURNS=1` prints each turn's wall and CPU time (both threads) to stderr, to
 * read beside `--v8-flags=--trace-gc` when a tail is to be explained.
 */
const TRACE_TURNS = Deno.env.get("HOMEAGENT_BENCH_TURNS") === "1";

function traceTurn(turn: number, wall: number, cpu: { user: number; system: number }) {
  const ms = (cpu.user + cpu.system) / 1000;
  // deno-lint-ignore no-console
  console.error(`recall turn ${turn}: wall ${wall.toFixed(2)} ms, cpu ${ms.toFixed(2)} ms`);
}

const base = (i: number) =>
  `${TOPICS[i % TOPICS.length]} ${TOPICS[(i * 7 + 3) % TOPICS.length]} note ${i % 400}`;

/**
 * The model's space without running it: a numbered copy gets its base sentence's vector, any
 * other text (an entity's name) the vector of a base sentence chosen by the text's hash.
 */
function copiesOf(model: Embedder, vectors: readonly Float32Array[]): Embedder {
  const byText = new Map(vectors.map((v, i) => [base(i), v]));
  const hashed = (text: string) => {
    let h = 0;
    for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) >>> 0;
    return vectors[h % vectors.length]!;
  };
  return {
    ...model,
    embed: (texts) =>
      Promise.resolve(texts.map((t) => byText.get(t.replace(/ #\d+$/, "")) ?? hashed(t))),
  };
}

/** A home holding 100,000 documents and a graph of 100,000 entities and 1,000,000 relations. */
async function buildHome(dir: string, copies: Embedder): Promise<HomePaths> {
  const paths = await ensureHome(dir);
  const analyzer = await createTextAnalyzer();
  const docs = await DocStore.open({
    dir: paths.docs,
    embedder: copies,
    analyzer,
    clock: systemClock,
    logger: silentLogger,
  });
  await docs.insertMany(
    Array.from({ length: 100_000 }, (_, i) => ({
      content: `${base(i)} #${i}`,
      source: "bench",
      createdAt: i,
    })),
    { batch: 1000, sync: false },
  );
  docs.close();
  const graph = GraphDB.open({ path: paths.graphDb, clock: systemClock, embedder: copies });
  try {
    const random = rng(11);
    const ids = graph.bulkEntities(
      names(100_000, random).map((name) => ({ name, type: "entity", mentions: 1 })),
    );
    addRelations(graph, ids, 1_000_000, random);
    await graph.reembedStale({ batch: 10_000 });
  } finally {
    graph.close();
  }
  return paths;
}

function userEvent(id: string, text: string, at: number): ContextEvent {
  return {
    id: `${id}:in`,
    role: "user",
    source: "cli",
    channel: "cli",
    input: text,
    turnIds: [id],
    timestamp: at,
  };
}

function inputOf(id: string, text: string, at: number): Input {
  return {
    id,
    text,
    source: "cli",
    channel: "cli",
    priority: 0,
    interrupt: false,
    receivedAt: at,
    meta: {},
  };
}

async function recallFigures(): Promise<Record<string, Figure>> {
  const model = await loadInstalledEmbedder(devModelsDir(), MODEL, { logger: silentLogger })
    .catch((error) => {
      throw new Error(`model "${MODEL}" is not installed (deno task model:dev): ${error.message}`);
    });
  try {
    return await measureRecall(model, "");
  } finally {
    await model.close();
  }
}

/** The figures over a home in `model`'s space, named with `suffix`. */
async function measureRecall(model: Embedder, suffix: string): Promise<Record<string, Figure>> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-bench-recall-" });
  try {
    const bases = Array.from({ length: 400 }, (_, i) => base(i));
    const vectors = await model.embed(bases);
    const paths = await buildHome(dir, copiesOf(model, vectors));
    using config = openTestRegistry();
    registerMemoryDefaults(config.registry);
    await using tiers = await openMemory({
      paths,
      config: config.registry,
      clock: systemClock,
      logger: silentLogger,
      embedder: model,
      heartbeatWatchMs: 0,
    });
    // A 30-event window whose events were embedded when they were stored, then a conversation.
    for (let i = 0; i < 30; i++) {
      const event = userEvent(`w${i}`, bases[i]!, i);
      event.vector = { fingerprint: model.fingerprint, vector: vectors[i]! };
      tiers.context.append(event);
    }
    const turns = ["我的猫今天不吃饭", "是不是生病了？", "my sister says take it to the doctor"];
    turns.forEach((text, i) => tiers.context.append(userEvent(`c${i}`, text, 100 + i)));
    const signal = new AbortController().signal;
    const idleBytes = tiers.documents.vectorBytes() + tiers.graph.graph.vectorBytes();
    const times: number[] = [];
    let first = 0;
    for (let i = 0; i < 70; i++) {
      const text = `what did the doctor say about the cat, visit ${i}?`;
      tiers.context.append(userEvent(`q${i}`, text, 1000 + i));
      const cpu0 = TRACE_TURNS ? process.cpuUsage() : undefined;
      const t0 = performance.now();
      await tiers.recall(inputOf(`q${i}`, text, 1000 + i), signal);
      if (cpu0) traceTurn(i, performance.now() - t0, process.cpuUsage(cpu0));
      if (i === 0) first = performance.now() - t0; // loads both tiers' int8 matrices
      if (i >= 10) times.push(performance.now() - t0); // the first ten warm up
    }
    const held = tiers.documents.vectorBytes() + tiers.graph.graph.vectorBytes();
    const figures: Record<string, Figure> = {
      "recall_first_ms_100k": { value: round(first, 1), unit: "ms" },
      "recall_vectors_mb_100k": { value: round(held / 1e6, 1), unit: "MB" },
      "recall_vectors_idle_mb_100k": { value: round(idleBytes / 1e6, 1), unit: "MB" },
      "recall_p95_ms_100k": { value: round(quantile(times, 0.95), 1), unit: "ms" },
      "recall_p50_ms_100k": { value: round(quantile(times, 0.5), 1), unit: "ms" },
    };
    return Object.fromEntries(Object.entries(figures).map(([name, f]) => [name + suffix, f]));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The same over a home without a model: the hash space (512 dimensions) of a new home. */
function hashRecallFigures(): Promise<Record<string, Figure>> {
  return measureRecall(createHashEmbedder({ dim: 512 }), "_hash");
}

/** The figures of this module. */
export const figures = {
  "recall_p95_ms_100k": recallFigures,
  "recall_p50_ms_100k": recallFigures,
  "recall_first_ms_100k": recallFigures,
  "recall_vectors_mb_100k": recallFigures,
  "recall_vectors_idle_mb_100k": recallFigures,
  "recall_p95_ms_100k_hash": hashRecallFigures,
  "recall_p50_ms_100k_hash": hashRecallFigures,
  "recall_first_ms_100k_hash": hashRecallFigures,
};
