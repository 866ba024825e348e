/**
 * How well each development model ranks on its own (no BM25, no tiers): for every question of an
 * evaluation set, the scope's memories ranked by cosine with the question. This is what chose
 * the default model (docs/memory.md). Usage:
 *   deno run -A tests/bench/model_quality.ts [--sets DIR/madial_zh,DIR/madial_en] [NAME…]
 * (default sets: $HOMEAGENT_EVAL_DIR/madial_{zh,en}, else ../shared/eval beside the checkout)
 * Prints one JSON object: per model and set, recall@5, recall@10, MRR and seconds.
 */
// deno-lint-ignore-file no-console
import { join } from "node:path";
import { parseArgs } from "node:util";
import { silentLogger } from "../../core/mod.ts";
import {
  EvalQuestion,
  EvalTurn,
  loadInstalledEmbedder,
  MODEL_CATALOG,
  readJsonl,
  recallAt,
  reciprocalRank,
} from "../../memory/mod.ts";
import { devModel, devModelsDir } from "../fixtures/dev_model.ts";

// The evaluation sets sit in ../shared/eval beside the checkout, or where HOMEAGENT_EVAL_DIR says.
const EVAL_DIR = Deno.env.get("HOMEAGENT_EVAL_DIR") ??
  join(new URL(".", import.meta.url).pathname, "../../../shared/eval");
const SETS = [join(EVAL_DIR, "madial_zh"), join(EVAL_DIR, "madial_en")];

async function scoreSet(set: string, embed: (t: string[]) => Promise<Float32Array[]>) {
  const turns = await readJsonl(join(set, "corpus.jsonl"), EvalTurn);
  const questions = (await readJsonl(join(set, "questions.jsonl"), EvalQuestion))
    .filter((q) => q.gold_turn_ids.length > 0);
  const sums = { "recall@5": 0, "recall@10": 0, mrr: 0 };
  for (const scope of new Set(turns.map((t) => t.scope ?? ""))) {
    const memories = turns.filter((t) => (t.scope ?? "") === scope);
    const asked = questions.filter((q) => (q.scope ?? "") === scope);
    const vectors = await embed(memories.map((m) => m.text));
    const queries = await embed(asked.map((q) => q.question));
    asked.forEach((q, i) => {
      const score = (v: Float32Array) => v.reduce((s, x, j) => s + x * queries[i]![j]!, 0);
      const ranked = memories.map((m, j) => ({ id: m.turn_id, s: score(vectors[j]!) }))
        .sort((a, b) => b.s - a.s).map((r) => r.id);
      sums["recall@5"] += recallAt(ranked, q.gold_turn_ids, 5);
      sums["recall@10"] += recallAt(ranked, q.gold_turn_ids, 10);
      sums.mrr += reciprocalRank(ranked, q.gold_turn_ids);
    });
  }
  const r = (x: number) => Math.round(x / questions.length * 1000) / 1000;
  return {
    questions: questions.length,
    "recall@5": r(sums["recall@5"]),
    "recall@10": r(sums["recall@10"]),
    mrr: r(sums.mrr),
  };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { sets: { type: "string" } },
  });
  const sets = values.sets?.split(",") ?? SETS;
  const names = positionals.length > 0 ? positionals : MODEL_CATALOG.map((m) => m.name);
  const out: Record<string, unknown> = {};
  for (const name of names) {
    if (!await devModel(name)) {
      console.error(`${name}: not in ${devModelsDir()} (deno task model:dev ${name})`);
      continue;
    }
    const embedder = await loadInstalledEmbedder(devModelsDir(), name, { logger: silentLogger });
    try {
      const perSet: Record<string, unknown> = {};
      for (const set of sets) {
        const started = performance.now();
        const scores = await scoreSet(set, (t) => embedder.embed(t));
        perSet[set.split("/").pop()!] = {
          ...scores,
          seconds: Math.round(performance.now() - started) / 1000,
        };
      }
      out[name] = perSet;
      console.error(name, JSON.stringify(perSet));
    } finally {
      await embedder.close();
    }
  }
  console.log(JSON.stringify(out, null, 2));
  return 0;
}

if (import.meta.main) Deno.exit(await main());
