/**
 * The automatic recall of a chat turn (the prompt's "[Memory Index]", "[Related Memory Docs]"
 * and "[Knowledge]"): one query vector for every tier, built from the window's recent turns.
 * A turn embeds only its input (`recall_embeds_per_turn`, issue 14): the earlier turns are
 * events of the window and lend their stored vectors, the input's vector is kept on its own
 * event for the next turns, and the documents are scored by the vectors stored with them.
 */
import type { Embedder, Input, MemorySection, RelevanceContext } from "../core/mod.ts";
import { documentsSection } from "../core/mod.ts";
import type { DocStore } from "./docs/store.ts";
import type { GraphTier } from "./graph/tier.ts";
import type { Upkeep } from "./upkeep.ts";
import type { TextAnalyzer } from "./text/keywords.ts";
import type { RecallSettingsSource } from "./recall/config.ts";
import { embedQuery, type KnownVector, type RecallQuery } from "./recall/query.ts";
import { rankMemory } from "./recall/rank.ts";
import { recentTurns } from "./recall/turns.ts";

/** A document is "related" when its pooled score (top lexical hit = 1) reaches this. */
const RELATED_FLOOR = 0.35;

/** What the automatic recall reads. */
export interface AutoRecallDeps {
  embedder: Embedder;
  analyzer: TextAnalyzer;
  context: RelevanceContext;
  documents: DocStore;
  graph: Pick<GraphTier, "section">;
  upkeep: Pick<Upkeep, "section">;
  settings: RecallSettingsSource;
}

/** The prompt sections recalled for `input` (a tier's failure is logged by the tier). */
export async function autoRecall(
  input: Input,
  signal: AbortSignal,
  deps: AutoRecallDeps,
): Promise<MemorySection[]> {
  const { context, embedder } = deps;
  const settings = deps.settings();
  // The query: the recent turns of the window, newest last, weighted by recency.
  const turns = recentTurns(context.events(), input, settings.turns);
  // The input is embedded in the model's Worker meanwhile; each tier takes the promise and does
  // its keyword work (the graph's seeds, the documents' BM25) before it waits for the vector.
  const embedded = queryVector(context, { turns, decay: settings.decay }, embedder, signal);
  const vector = embedded.then((e) => e.vector);
  // The graph logs its own failures; the embedder's reaches the caller through the documents.
  const graphVector = vector.catch(() => new Float32Array(0));
  const [index, ranked, knowledge] = await Promise.all([
    deps.graph.section(input.text, signal, turns.slice(0, -1), graphVector),
    // The same one-scale ranking `eval memory` measures; documents above the floor go in.
    rankMemory(turns, {
      embedder,
      analyzer: deps.analyzer,
      events: context.events(),
      documents: deps.documents,
    }, { signal, settings, vector }),
    embedded.then(({ known }) => deps.upkeep.section(input.text, signal, known(input.text))),
  ]);
  // Shown, not read: only the model's own doc_query counts against a document's coldness.
  const docs = ranked.filter((item) => item.tier === "documents" && item.score >= RELATED_FLOOR)
    .slice(0, 3).flatMap((item) => item.document ?? []);
  const related = documentsSection(docs);
  return [index, related, knowledge].filter((s): s is MemorySection => s !== undefined);
}

/**
 * The query's vector. Events stored without a vector get theirs now, and keep it: the input's
 * own event (recorded already) and whatever the background has not embedded yet (after a
 * restart); the turns then lend their stored vectors.
 */
async function queryVector(
  context: RelevanceContext,
  query: RecallQuery,
  embedder: Embedder,
  signal: AbortSignal,
): Promise<{ vector: Float32Array; known: KnownVector }> {
  await context.reembed({ signal });
  const known = context.knownVectors();
  return { vector: await embedQuery(query, embedder, signal, known), known };
}
