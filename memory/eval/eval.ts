/**
 * The memory evaluation (DESIGN.md §8): for each scope, a fresh memory fed that scope's turns in
 * time order through the real ingest path (context append and prune, archive to documents, rule
 * distillation into the graph when a graph is given; no LLM), then each question asked the
 * recall that builds the system prompt, every returned item mapped back to its turn ids.
 */
import { z } from "zod";
import {
  type Clock,
  type ContextEvent,
  type Embedder,
  eventsToDocuments,
  type Logger,
  type MemoryDocument,
  RelevanceContext,
} from "../../core/mod.ts";
import { DocStore } from "../docs/store.ts";
import { newDocument } from "../docs/store.ts";
import type { TextAnalyzer } from "../text/keywords.ts";
import { rankMemory } from "../recall/rank.ts";
import { defaultRecallSettings, type RecallSettings } from "../recall/config.ts";

/** One corpus line. Extra fields are ignored; `scope` may be absent (one scope). */
export const EvalTurn = z.lazy(() =>
  z.object({
    turn_id: z.string(),
    session_id: z.string().optional(),
    speaker: z.string(),
    text: z.string(),
    timestamp: z.string(),
    scope: z.string().optional(),
  })
);

/** One question line. An empty gold list is read, then skipped (it cannot be scored). */
export const EvalQuestion = z.lazy(() =>
  z.object({
    id: z.string(),
    question: z.string(),
    lang: z.string().optional(),
    gold_turn_ids: z.array(z.string()),
    scope: z.string().optional(),
  })
);

/** A parsed corpus turn. */
export type EvalTurn = z.infer<typeof EvalTurn>;
/** A parsed question. */
export type EvalQuestion = z.infer<typeof EvalQuestion>;

/** The tiers an item can come from. */
export type EvalTier = "context" | "documents" | "graph";

/** A ranked list of turn ids from one tier. */
export type TierRanking = { tier: EvalTier; turnIds: string[] };

/** A scope's memory, fed and ready to answer. */
export interface EvalMemory {
  ingest(turn: EvalTurn): Promise<void>;
  /** The fused ranking (what recall hands the prompt) and each tier's own, best first. */
  rank(question: string): Promise<{ fused: string[]; tiers: TierRanking[] }>;
  close(): Promise<void>;
}

/** Everything a scope's memory is built from; `dir` is a fresh folder for its files. */
export interface EvalMemoryOptions {
  dir: string;
  embedder: Embedder;
  analyzer: TextAnalyzer;
  clock: Clock;
  logger: Logger;
  /** Context capacity before pruning (`core.agent.max_context_size`). */
  contextSize: number;
  /** Extra tiers (the graph) plugged in by their owners. */
  extraTiers?: EvalTierPlugin[];
  /** Recall's mix and recency decay; default the space's defaults. */
  recall?: RecallSettings;
}

/** A tier beyond context and documents: fed every turn, asked every question. */
export interface EvalTierPlugin {
  tier: EvalTier;
  ingest(turn: EvalTurn, event: ContextEvent): Promise<void>;
  /** The documents the window archived, as they were stored (the archive loop's input). */
  archived?(documents: readonly MemoryDocument[]): Promise<void>;
  /** Rank for the question's turns (oldest first, the last one the input). */
  rank(turns: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

/** A transcript line's speaker label: "Bart: ", "Assistant: ", "用户：". */
const SPEAKER = /^[^\s:：][^:：\n]{0,31}[:：]\s*/;

/**
 * A question's turns, oldest first: a question of several lines is a dialogue, one turn per
 * line, and is asked the way a chat asks recall — its recent turns, the newest last. A chat's
 * turns are what was said (recentTurns reads the events' text), so a transcript whose every
 * line starts with a speaker label is asked without the labels: a name before each turn would
 * add to the query what the daemon never puts there.
 */
export function questionTurns(question: string): string[] {
  const turns = question.split("\n").map((t) => t.trim()).filter((t) => t !== "");
  if (turns.length === 0) return [question];
  if (turns.length === 1 || !turns.every((t) => SPEAKER.test(t))) return turns;
  return turns.map((t) => t.replace(SPEAKER, "").trim() || t);
}

const DOCS_PER_QUESTION = 20;

/** Build a scope's memory from the real context window and document store. */
export async function createEvalMemory(options: EvalMemoryOptions): Promise<EvalMemory> {
  const settings = options.recall ?? defaultRecallSettings(options.embedder);
  const documents = await DocStore.open({
    dir: `${options.dir}/docs`,
    embedder: options.embedder,
    analyzer: options.analyzer,
    recall: () => settings,
    clock: options.clock,
    logger: options.logger,
  });
  const extra = options.extraTiers ?? [];
  const context = await RelevanceContext.load({
    clock: options.clock,
    logger: options.logger,
    embedder: options.embedder,
    store: { load: () => Promise.resolve({ journal: [] }), save: () => Promise.resolve() },
    archive: async (events) => {
      const docs = eventsToDocuments(events);
      await documents.insertMany(docs, { sync: false });
      const stored = docs.map((d) => newDocument(d, d.content, options.clock.now()));
      for (const tier of extra) await tier.archived?.(stored);
    },
    topK: () => options.contextSize,
    debounceMs: 3_600_000,
  });
  // An assistant turn answers the user turn before it: the two are one exchange, as in a chat.
  let lastUser: string | undefined;
  return {
    async ingest(turn) {
      const assistant = turn.speaker === "assistant";
      if (!assistant) lastUser = turn.turn_id;
      const event: ContextEvent = {
        id: turn.turn_id,
        exchange: assistant ? lastUser ?? turn.turn_id : turn.turn_id,
        role: assistant ? "agent" : "user",
        source: turn.speaker,
        channel: "eval",
        input: assistant ? undefined : turn.text,
        response: assistant ? turn.text : undefined,
        turnIds: [turn.turn_id],
        timestamp: Date.parse(turn.timestamp),
      };
      context.append(event);
      await context.prune(turn.text);
      for (const tier of extra) await tier.ingest(turn, event);
    },
    async rank(question) {
      const turns = questionTurns(question).slice(-settings.turns);
      const items = await rankMemory(turns, {
        embedder: options.embedder,
        analyzer: options.analyzer,
        events: context.events(),
        documents,
      }, { settings });
      const hits = await documents.query(turns.at(-1)!, {
        k: DOCS_PER_QUESTION,
        context: turns.slice(0, -1),
      });
      const tiers: TierRanking[] = [
        {
          tier: "context",
          turnIds: items.filter((i) => i.tier === "context").flatMap((i) => i.turnIds),
        },
        { tier: "documents", turnIds: hits.flatMap((h) => h.document.turnIds) },
      ];
      const union: TierRanking = { tier: "context", turnIds: items.flatMap((i) => i.turnIds) };
      const graph: TierRanking[] = [];
      for (const tier of extra) graph.push({ tier: tier.tier, turnIds: await tier.rank(turns) });
      tiers.push(...graph);
      // The graph's facts are a prompt section of their own ("[Memory Index]"), not items of the
      // pooled ranking: they complete it rather than interleave with it (interleaving by rank
      // fusion took MADial zh recall@10 from 0.73 to 0.42 once the graph held the archive's facts).
      const fused = unique([...union.turnIds, ...graph.flatMap((g) => g.turnIds)]);
      return { fused, tiers };
    },
    async close() {
      await context.flush();
      documents.close();
      for (const tier of extra) await tier.close();
    },
  };
}

/** Fuse tier rankings by reciprocal rank into one list of distinct turn ids. */
export function fuseRankings(rankings: readonly TierRanking[], k = 60): string[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    unique(ranking.turnIds).forEach((id, rank) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + rank + 1));
    });
  }
  return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
}

/** Distinct values in first-seen order. */
export function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/** recall@k: the share of gold turns found in the first k. */
export function recallAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  return gold.filter((g) => top.has(g)).length / gold.length;
}

/** Reciprocal rank of the first gold turn (0 when none is ranked). */
export function reciprocalRank(ranked: readonly string[], gold: readonly string[]): number {
  const goldSet = new Set(gold);
  const at = ranked.findIndex((id) => goldSet.has(id));
  return at < 0 ? 0 : 1 / (at + 1);
}
