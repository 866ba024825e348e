/**
 * One recall over the tiers: every event of the context window and the best documents are put
 * in one candidate pool and re-ranked on one scale — BM25 computed over the pool itself plus a
 * weighted cosine in the shared vector space — so an item's rank does not depend on which tier
 * happens to hold it. The prompt's "[Related Memory Docs]" and the evaluation both read it.
 */
import type { ContextEvent, DocumentStore, Embedder, MemoryDocument } from "../core/mod.ts";
import { textForVector } from "../core/mod.ts";
import { Bm25Index } from "./text/bm25.ts";
import type { TextAnalyzer } from "./text/keywords.ts";

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
  documents: DocumentStore;
}

/** Options of rankMemory. */
export interface RankOptions {
  /** Documents drawn into the pool; default 50. */
  pool?: number;
  /** Weight of the cosine next to the pool-normalised BM25; default 0.2. */
  denseWeight?: number;
  /** Items whose words expand the query (pseudo-relevance feedback); default 3, 0 turns it off. */
  feedback?: number;
  /** Expansion words taken from them; default 10. */
  expansionTerms?: number;
  /** Weight of an expansion word relative to a query word; default 0.3. */
  feedbackWeight?: number;
  signal?: AbortSignal;
}

/** Rank the context window and the documents for `query` on one scale, best first. */
export async function rankMemory(
  query: string,
  sources: RecallSources,
  options: RankOptions = {},
): Promise<RecallItem[]> {
  if (query.trim() === "") return [];
  const hits = await sources.documents.query(query, {
    k: options.pool ?? 50,
    minDense: 0,
    signal: options.signal,
  });
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
      text: hit.document.content,
      score: 0,
      document: hit.document,
    })),
  ];
  if (items.length === 0) return [];
  const words = new Bm25Index();
  items.forEach((item, i) => words.add(String(i), sources.analyzer.tokenize(item.text)));
  const queryTerms = sources.analyzer.tokenize(query);
  let lexical = words.search(queryTerms, items.length);
  const feedback = options.feedback ?? 3;
  if (feedback > 0 && lexical.length > 0) {
    // Pseudo-relevance feedback: the best first-pass items lend their words to the query.
    const weights = new Map(queryTerms.map((t) => [t, 1]));
    const extra = new Map<string, number>();
    for (const hit of lexical.slice(0, feedback)) {
      for (const term of new Set(sources.analyzer.tokenize(items[Number(hit.id)]!.text))) {
        if (!weights.has(term)) extra.set(term, (extra.get(term) ?? 0) + 1);
      }
    }
    const expansion = [...extra].sort((a, b) => b[1] - a[1]).slice(0, options.expansionTerms ?? 10);
    for (const [term, count] of expansion) {
      weights.set(term, (options.feedbackWeight ?? 0.3) * count / feedback);
    }
    lexical = words.search(queryTerms, items.length, weights);
  }
  const best = lexical[0]?.score ?? 0;
  const vectors = await sources.embedder.embed([query, ...items.map((i) => i.text)], {
    signal: options.signal,
  });
  const q = vectors[0]!;
  const weight = options.denseWeight ?? 0.2;
  items.forEach((item, i) => {
    const v = vectors[i + 1]!;
    let dot = 0;
    for (let j = 0; j < v.length; j++) dot += v[j]! * q[j]!;
    item.score = weight * dot;
  });
  for (const hit of lexical) items[Number(hit.id)]!.score += best > 0 ? hit.score / best : 0;
  return items.sort((a, b) => b.score - a.score);
}
