/**
 * One recall over the tiers: every event of the context window and the best documents are put
 * in one candidate pool and ranked on one scale — recall's dense/keyword mix (mix.ts): the
 * cosine with the recency-weighted query vector and BM25 computed over the pool itself — so an
 * item's rank does not depend on which tier happens to hold it. The prompt's "[Related Memory
 * Docs]" and the evaluation both read it.
 */
import type {
  ContextEvent,
  DocumentStore,
  Embedder,
  MemoryDocument,
  ScoredDocument,
} from "../../core/mod.ts";
import { cleanText, textForScoring, textForVector } from "../../core/mod.ts";
import { Bm25Index } from "../text/bm25.ts";
import type { TextAnalyzer } from "../text/keywords.ts";
import { type MixCandidate, mixScores } from "./mix.ts";
import { embedQuery, queryTerms, type QueryVector, type RecallQuery } from "./query.ts";
import { defaultRecallSettings, denseWeightFor, type RecallSettings } from "./config.ts";
import { wordScores, wordsOf } from "./words.ts";
import { isSemantic, kindOf } from "../embed/kind.ts";
import { scriptCoverage } from "../text/scripts.ts";

/** A recalled item and where it came from. */
export interface RecallItem {
  tier: "context" | "documents";
  turnIds: string[];
  text: string;
  score: number;
  document?: MemoryDocument;
  event?: ContextEvent;
}

/** What rankMemory reads. */
export interface RecallSources {
  embedder: Embedder;
  analyzer: TextAnalyzer;
  events: readonly ContextEvent[];
  /**
   * The document store; a DocStore also takes the query vector, so it is embedded once, and
   * hands back each hit's content words as `analyzer` cuts them, so they are not cut again.
   */
  documents: DocumentStore & {
    query(
      text: string,
      options?: Parameters<DocumentStore["query"]>[1] & { vector?: QueryVector },
    ): Promise<(ScoredDocument & { words?: readonly string[] })[]>;
  };
}

/** Options of rankMemory. */
export interface RankOptions {
  /** Documents drawn into the pool; default 50. */
  pool?: number;
  /** The mix and the query's recency decay; default the space's defaults. */
  settings?: RecallSettings;
  /**
   * The query's vector when the caller has it (recall shares one with the graph tier), or its
   * promise: the documents' keyword side runs while it is computed.
   */
  vector?: QueryVector;
  signal?: AbortSignal;
}

/**
 * Rank the context window and the documents for `turns` (recent turns, oldest first, the
 * current input last) on one scale, best first.
 */
export async function rankMemory(
  turns: string | readonly string[],
  sources: RecallSources,
  options: RankOptions = {},
): Promise<RecallItem[]> {
  const settings = options.settings ?? defaultRecallSettings(sources.embedder);
  const list = typeof turns === "string" ? [turns] : turns;
  const query: RecallQuery = { turns: list, decay: settings.decay };
  const text = list.at(-1) ?? "";
  if (list.every((t) => t.trim() === "")) return [];
  const dim = sources.embedder.dim;
  const given = Promise.resolve(options.vector).then((v) =>
    v?.length === dim ? v : embedQuery(query, sources.embedder, options.signal)
  );
  const hits = await sources.documents.query(text, {
    k: options.pool ?? 50,
    minDense: 0,
    context: list.slice(0, -1),
    vector: given,
    signal: options.signal,
  });
  const vector = await given;
  const items: RecallItem[] = [
    ...sources.events.map((event) => ({
      tier: "context" as const,
      turnIds: event.turnIds ?? [],
      text: textForVector(event),
      score: 0,
      event,
    })),
    ...hits.map((hit) => ({
      tier: "documents" as const,
      turnIds: hit.document.turnIds,
      text: textForScoring(hit.document.content),
      score: 0,
      document: hit.document,
    })),
  ];
  if (items.length === 0) return [];
  const dense = await denseScores(items, hits.map((h) => h.dense), vector, sources, options);
  const weight = denseWeightFor(settings, list);
  // Each item's words: a document's as the store kept them, the window's cut now (remembered).
  const events = sources.events.length;
  const texts = items.map((item, i) =>
    (i >= events ? hits[i - events]!.words : undefined) ?? item.text
  );
  if (vectorsKnowQuery(sources.embedder, settings, list)) {
    const mixed = mixedScores(texts, dense, query, sources.analyzer, weight);
    items.forEach((item, i) => item.score = mixed.get(i) ?? 0);
  } else {
    // The words decide and the vectors only nudge (words.ts).
    const words = wordScores(texts, list, sources.analyzer);
    items.forEach((item, i) => item.score = (words.get(i) ?? 0) + weight * (dense[i] ?? 0));
  }
  return foldRepeats(items.sort((a, b) => b.score - a.score));
}

/**
 * One item per text: an item saying what one ranked above it says (a greeting repeated each
 * morning, the same exchange archived twice) is folded into that one, which keeps its place and
 * takes its turn ids, so repeats do not crowd out other memories and none of their turns is lost.
 */
function foldRepeats(ranked: readonly RecallItem[]): RecallItem[] {
  const first = new Map<string, RecallItem>();
  const out: RecallItem[] = [];
  for (const item of ranked) {
    const key = cleanText(item.text).normalize("NFKC").toLowerCase();
    const kept = first.get(key);
    if (kept === undefined) {
      first.set(key, item);
      out.push(item);
    } else kept.turnIds = [...new Set([...kept.turnIds, ...item.turnIds])];
  }
  return out;
}

/**
 * Whether the space's vectors carry meaning for this query: a model, word vectors or an
 * endpoint, asked mostly in scripts it was trained for. A words-only space (hash, tfidf) and an
 * English question to the Chinese model (or a Chinese one to an English model) are ranked the
 * words-only way instead: with the dense weight near 0 the mix is BM25 alone, and the words-only
 * recipe beats that (MADial recall@10 bge-small-zh on en 0.597 → 0.629, e5 on zh 0.559 → 0.610;
 * docs/memory.md "Hybrid recall").
 */
function vectorsKnowQuery(
  embedder: Embedder,
  settings: RecallSettings,
  turns: readonly string[],
): boolean {
  if (!isSemantic(kindOf(embedder.fingerprint))) return false;
  return scriptCoverage(turns, settings.languages) >= 0.5;
}

/** Each text's (or its words') mix (mix.ts) of its cosine and its BM25 over the pool, by index. */
function mixedScores(
  texts: readonly (string | readonly string[])[],
  dense: readonly (number | undefined)[],
  query: RecallQuery,
  analyzer: TextAnalyzer,
  weight: number,
): Map<number, number> {
  const words = new Bm25Index();
  texts.forEach((text, i) => words.add(String(i), wordsOf(text, analyzer)));
  const terms = queryTerms(query, analyzer);
  const keyword = new Map(
    words.search([...terms.keys()], texts.length, terms).map((h) => [Number(h.id), h.score]),
  );
  const candidates: MixCandidate[] = texts.map((_, i) => ({
    id: String(i),
    dense: dense[i],
    keyword: keyword.get(i),
  }));
  return new Map(mixScores(candidates, { dense: weight }).map((m) => [Number(m.id), m.score]));
}

/**
 * Each item's cosine with `vector`: an event's stored vector of the current space (an event
 * without one is embedded now, in one call), a document's score from the store's dense side.
 */
async function denseScores(
  items: readonly RecallItem[],
  docDense: readonly (number | undefined)[],
  vector: Float32Array,
  sources: RecallSources,
  options: RankOptions,
): Promise<(number | undefined)[]> {
  const { embedder } = sources;
  const events = items.filter((i) => i.tier === "context").length;
  const scores: (number | undefined)[] = items.map((item, i) => {
    if (item.tier === "documents") return docDense[i - events];
    const stored = item.event?.vector;
    return stored?.fingerprint === embedder.fingerprint && stored.vector.length === vector.length
      ? dot(stored.vector, vector)
      : undefined;
  });
  // A document the dense side did not reach ranks below its 50 best: it stays unscored there.
  const missing = scores.flatMap((s, i) => s === undefined && i < events ? [i] : []);
  if (missing.length > 0) {
    const vectors = await embedder.embed(missing.map((i) => items[i]!.text), {
      signal: options.signal,
    });
    missing.forEach((i, j) => scores[i] = dot(vectors[j]!, vector));
  }
  return scores;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
