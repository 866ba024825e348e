/** Running the memory evaluation over JSONL files and scoring it (DESIGN.md §8). */
import { join } from "node:path";
import type { z } from "zod";
import { type Clock, type Embedder, HomeAgentError, type Logger } from "../../core/mod.ts";
import {
  createEvalMemory,
  EvalQuestion,
  type EvalTier,
  type EvalTierPlugin,
  EvalTurn,
  recallAt,
  reciprocalRank,
  unique,
} from "./eval.ts";
import type { TextAnalyzer } from "../text/keywords.ts";
import { graphEvalTier } from "./_graph.ts";
import type { RecallSettings } from "../recall/config.ts";

/** Options of runMemoryEval. */
export interface MemoryEvalOptions {
  corpusPath: string;
  questionsPath: string;
  ks: number[];
  embedder: Embedder;
  analyzer: TextAnalyzer;
  clock: Clock;
  logger: Logger;
  contextSize: number;
  /** One line per question, `{"id","ranked":[turn_id,...]}`. */
  runOut?: string;
  /** Recall's mix and recency decay; default the space's defaults. */
  recall?: RecallSettings;
  /** Tiers beyond context and documents for a scope, built in `dir`; default: the graph. */
  extraTiers?: (dir: string) => Promise<EvalTierPlugin[]>;
  onProgress?: (message: string) => void;
}

/** Scores of one slice of the questions. */
export type Scores = Record<string, number> & { questions: number };

/** The printed result. */
export interface MemoryEvalResult {
  /** Questions scored (those with at least one gold turn). */
  questions: number;
  /** Questions read but not scored because their gold list is empty. */
  "skipped_empty_gold": number;
  turns: number;
  scopes: number;
  overall: Scores;
  "by_lang": Record<string, Scores>;
  "by_tier": Record<string, Scores>;
  embedder: string;
  seconds: number;
  "ingest_turns_per_s": number;
}

/** Read and validate a JSONL file; a bad line is reported with its number, a missing file by name. */
export async function readJsonl<T>(path: string, schema: z.ZodType<T>): Promise<T[]> {
  const text = await Deno.readTextFile(path).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new HomeAgentError("not_found", `Cannot read "${path}": there is no such file`);
  });
  const rows: T[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new SyntaxError(`${path}:${i + 1}: not JSON (${(error as Error).message})`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new TypeError(`${path}:${i + 1}: ${issue.path.join(".") || "line"}: ${issue.message}`);
    }
    rows.push(parsed.data);
  }
  return rows;
}

class Tally {
  #sums = new Map<string, number>();
  #count = 0;
  add(ranked: readonly string[], gold: readonly string[], ks: readonly number[]): void {
    this.#count++;
    for (const k of ks) this.#bump(`recall@${k}`, recallAt(ranked, gold, k));
    this.#bump("mrr", reciprocalRank(ranked, gold));
  }
  #bump(key: string, value: number): void {
    this.#sums.set(key, (this.#sums.get(key) ?? 0) + value);
  }
  scores(): Scores {
    const out: Record<string, number> = { questions: this.#count };
    for (const [key, sum] of this.#sums) out[key] = Math.round(sum / this.#count * 1000) / 1000;
    return out as Scores;
  }
}

/** Run the evaluation; resolves with the result object the command prints. */
export async function runMemoryEval(options: MemoryEvalOptions): Promise<MemoryEvalResult> {
  const started = performance.now();
  const turns = await readJsonl(options.corpusPath, EvalTurn);
  const read = await readJsonl(options.questionsPath, EvalQuestion);
  // A question without gold turns has no recall to measure; it is counted, not scored.
  const questions = read.filter((q) => q.gold_turn_ids.length > 0);
  if (questions.length < read.length) {
    options.onProgress?.(
      `${read.length - questions.length} question(s) with an empty gold list skipped`,
    );
  }
  const scopes = [...new Set([...turns, ...questions].map((x) => x.scope ?? ""))];
  const overall = new Tally();
  const byLang = new Map<string, Tally>();
  const byTier = new Map<EvalTier | "fused", Tally>();
  const runLines: string[] = [];
  let ingestSeconds = 0;
  for (const scope of scopes) {
    const dir = await Deno.makeTempDir({ prefix: "homeagent-eval-" });
    try {
      const memory = await createEvalMemory({
        dir,
        embedder: options.embedder,
        analyzer: options.analyzer,
        clock: options.clock,
        logger: options.logger,
        contextSize: options.contextSize,
        recall: options.recall,
        extraTiers: options.extraTiers ? await options.extraTiers(join(dir, "extra")) : [
          await graphEvalTier({
            dir: join(dir, "graph"),
            embedder: options.embedder,
            analyzer: options.analyzer,
            clock: options.clock,
            logger: options.logger,
            recall: options.recall && (() => options.recall!),
          }),
        ],
      });
      const scoped = turns.filter((t) => (t.scope ?? "") === scope)
        .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
      const t0 = performance.now();
      for (const turn of scoped) await memory.ingest(turn);
      ingestSeconds += (performance.now() - t0) / 1000;
      options.onProgress?.(`scope "${scope}": ${scoped.length} turns ingested`);
      for (const q of questions.filter((x) => (x.scope ?? "") === scope)) {
        const { fused, tiers: rankings } = await memory.rank(q.question);
        overall.add(fused, q.gold_turn_ids, options.ks);
        const lang = q.lang ?? "unknown";
        if (!byLang.has(lang)) byLang.set(lang, new Tally());
        byLang.get(lang)!.add(fused, q.gold_turn_ids, options.ks);
        for (const ranking of rankings) {
          if (!byTier.has(ranking.tier)) byTier.set(ranking.tier, new Tally());
          byTier.get(ranking.tier)!.add(unique(ranking.turnIds), q.gold_turn_ids, options.ks);
        }
        runLines.push(
          JSON.stringify({ id: q.id, ranked: fused.slice(0, Math.max(...options.ks)) }),
        );
      }
      await memory.close();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  if (options.runOut) await Deno.writeTextFile(options.runOut, runLines.join("\n") + "\n");
  return {
    questions: questions.length,
    "skipped_empty_gold": read.length - questions.length,
    turns: turns.length,
    scopes: scopes.length,
    overall: overall.scores(),
    "by_lang": Object.fromEntries([...byLang].map(([k, t]) => [k, t.scores()])),
    "by_tier": Object.fromEntries([...byTier].map(([k, t]) => [k, t.scores()])),
    embedder: options.embedder.fingerprint,
    seconds: Math.round(performance.now() - started) / 1000,
    "ingest_turns_per_s": Math.round(turns.length / Math.max(ingestSeconds, 1e-9)),
  };
}
