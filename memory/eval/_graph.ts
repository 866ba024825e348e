/**
 * The graph tier of `eval memory`: each user turn goes through the rule distiller into a fresh
 * graph (no LLM), and each question is asked the Indexer's recall — the one that builds the
 * prompt's "[Memory Index]" — whose facts map back to the turns they came from.
 */
import type { Clock, Logger } from "../../core/mod.ts";
import type { Embedder } from "../../core/mod.ts";
import type { EvalTierPlugin } from "./eval.ts";
import { distillText } from "../loops/distiller.ts";
import { fallbackTriples } from "../loops/heartbeat.ts";
import { openGraphTier } from "../graph/tier.ts";
import type { TextAnalyzer } from "../text/keywords.ts";
import type { RecallSettingsSource } from "../recall/config.ts";

/** Build the graph tier of one scope in `dir`. */
export async function graphEvalTier(options: {
  dir: string;
  embedder: Embedder;
  analyzer: TextAnalyzer;
  clock: Clock;
  logger: Logger;
  recall?: RecallSettingsSource;
}): Promise<EvalTierPlugin> {
  await Deno.mkdir(options.dir, { recursive: true });
  const tier = openGraphTier({ ...options, path: `${options.dir}/graph.db` });
  return {
    tier: "graph",
    async ingest(turn) {
      if (turn.speaker === "assistant") return;
      const triples = distillText(turn.text, {
        subject: turn.session_id ?? turn.speaker,
        turnIds: [turn.turn_id],
      }).map((t) => ({ ...t, validFrom: Date.parse(turn.timestamp) }));
      if (triples.length > 0) await tier.graph.commit(triples);
    },
    // What the archive loop commits for a cold document when no LLM answers (the rules, then
    // keyword co-occurrence): documents reach the graph that way, not only first-person turns.
    async archived(documents) {
      const triples = documents.flatMap((doc) => fallbackTriples(doc, options.analyzer));
      if (triples.length > 0) await tier.graph.commit(triples);
    },
    async rank(turns) {
      const recall = await tier.indexer.recall(turns.at(-1) ?? "", {
        limit: 50,
        context: turns.slice(0, -1),
      });
      return recall.relations.flatMap((r) => r.turnIds);
    },
    close: () => Promise.resolve(tier.close()),
  };
}
