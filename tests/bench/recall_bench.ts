/**
 * `recall_p95_ms_100k`: the chat recall of the daemon (rankMemory: the recency-weighted query
 * of 4 turns embedded by the real sentence model, the document store's hybrid query over
 * 100,000 documents, the pooled mix with a 30-event window) — p95 of 60 queries, each with one
 * new turn (the earlier ones are in the model's cache, as in a conversation). The documents
 * carry real model vectors: 400 distinct sentences embedded by the model, each stored under
 * many numbered copies (embedding 100,000 texts would take the bench an hour).
 * @module
 */
import { type Embedder, silentLogger } from "../../core/mod.ts";
import { systemClock } from "../../adapters/mod.ts";
import {
  createTextAnalyzer,
  DEFAULT_MODEL,
  DocStore,
  loadInstalledEmbedder,
  rankMemory,
} from "../../memory/mod.ts";
import { devModelsDir } from "../fixtures/dev_model.ts";
import { type Figure, quantile, round } from "./_figure.ts";

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

const base = (i: number) =>
  `${TOPICS[i % TOPICS.length]} ${TOPICS[(i * 7 + 3) % TOPICS.length]} note ${i % 400}`;

/** Stores each numbered copy under its base sentence's model vector (same fingerprint). */
function copiesOf(model: Embedder, vectors: Map<string, Float32Array>): Embedder {
  return {
    ...model,
    embed: (texts) =>
      Promise.resolve(
        texts.map((t) => vectors.get(t.replace(/ #\d+$/, "")) ?? vectors.values().next().value!),
      ),
  };
}

async function recallFigure(): Promise<Figure> {
  const model = await loadInstalledEmbedder(devModelsDir(), MODEL, { logger: silentLogger })
    .catch((error) => {
      throw new Error(`model "${MODEL}" is not installed (deno task model:dev): ${error.message}`);
    });
  const dir = await Deno.makeTempDir({ prefix: "homeagent-bench-recall-" });
  const analyzer = await createTextAnalyzer();
  try {
    const bases = Array.from({ length: 400 }, (_, i) => base(i));
    const vectors = new Map<string, Float32Array>();
    const embedded = await model.embed(bases);
    bases.forEach((b, i) => vectors.set(b, embedded[i]!));
    const loader = await DocStore.open({
      dir,
      embedder: copiesOf(model, vectors),
      analyzer,
      clock: systemClock,
      logger: silentLogger,
    });
    await loader.insertMany(
      Array.from({ length: 100_000 }, (_, i) => ({
        content: `${base(i)} #${i}`,
        source: "bench",
        createdAt: i,
      })),
      { batch: 1000, sync: false },
    );
    loader.close();
    const documents = await DocStore.open({
      dir,
      embedder: model,
      analyzer,
      clock: systemClock,
      logger: silentLogger,
    });
    try {
      const window = await model.embed(bases.slice(0, 30));
      const events = window.map((vector, i) => ({
        id: `e${i}`,
        role: "user" as const,
        source: "cli",
        channel: "cli",
        input: bases[i]!,
        timestamp: i,
        vector: { fingerprint: model.fingerprint, vector },
      }));
      const sources = { embedder: model, analyzer, events, documents };
      const turns = ["我的猫今天不吃饭", "是不是生病了？", "my sister says take it to the doctor"];
      const times: number[] = [];
      for (let i = 0; i < 70; i++) {
        const asked = [...turns, `what did the doctor say about the cat, visit ${i}?`];
        const t0 = performance.now();
        await rankMemory(asked, sources);
        if (i >= 10) times.push(performance.now() - t0); // the first ten warm up
      }
      return { value: round(quantile(times, 0.95), 1), unit: "ms" };
    } finally {
      documents.close();
    }
  } finally {
    await model.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The figure of this module. */
export const figures = { "recall_p95_ms_100k": recallFigure };
