/**
 * Recall's keyword side for a words-only space (hash, tfidf; issue 15): there the vectors are
 * hashed words too, so the words must carry the ranking. Every word of the recent turns counts
 * once (no recency weights: on MADial-Bench they cost the keyword side about 0.04 recall@10),
 * and pseudo-relevance feedback lends the best first-pass items' words to the query. The score
 * is BM25 over the pool divided by its best (the top lexical hit is 1) plus the cosine with a
 * small weight, the recipe recall had before the hybrid mix: MADial recall@10 0.609 zh,
 * 0.623 en with the hash space, where the min-max mix reached 0.585 and 0.594
 * (docs/memory.md "Hybrid recall").
 * @module
 */
import { Bm25Index } from "../text/bm25.ts";
import type { TextAnalyzer } from "../text/keywords.ts";

/** Pseudo-relevance feedback: how many items lend words, how many, and their weight. */
export interface Feedback {
  /** First-pass items whose words expand the query; 0 turns feedback off. */
  items: number;
  /** Expansion words taken, those most of the items share first. */
  terms: number;
  /** Weight of an expansion word held by all `items`, relative to a query word (1). */
  weight: number;
}

/** The feedback recall used before the hybrid mix, and still the best measured. */
export const DEFAULT_FEEDBACK: Feedback = { items: 3, terms: 10, weight: 0.3 };

/**
 * Each of `texts`' BM25 score for the words of `turns` (each word once) with feedback, divided
 * by the best score, by index; a text no query word reaches is absent. A text may come as its
 * words already cut by `analyzer` (`tokenize`).
 */
export function wordScores(
  texts: readonly (string | readonly string[])[],
  turns: readonly string[],
  analyzer: TextAnalyzer,
  feedback: Feedback = DEFAULT_FEEDBACK,
): Map<number, number> {
  const index = new Bm25Index();
  const tokens = texts.map((text) => wordsOf(text, analyzer));
  tokens.forEach((terms, i) => index.add(String(i), terms));
  const weights = new Map<string, number>();
  for (const turn of turns) for (const term of analyzer.tokenize(turn)) weights.set(term, 1);
  let hits = index.search([...weights.keys()], texts.length, weights);
  if (feedback.items > 0 && hits.length > 0) {
    const top = hits.slice(0, feedback.items).map((h) => tokens[Number(h.id)]!);
    for (const [term, share] of expansion(top, weights, feedback)) weights.set(term, share);
    hits = index.search([...weights.keys()], texts.length, weights);
  }
  const best = hits[0]?.score ?? 0;
  return new Map(best > 0 ? hits.map((h) => [Number(h.id), h.score / best]) : []);
}

/** A text's words (`analyzer.tokenize`), or the words given. */
export function wordsOf(
  text: string | readonly string[],
  analyzer: TextAnalyzer,
): readonly string[] {
  return typeof text === "string" ? analyzer.tokenize(text) : text;
}

/** The words of `top` not in the query, the most shared first, each with its weight. */
function expansion(
  top: readonly (readonly string[])[],
  query: ReadonlyMap<string, number>,
  feedback: Feedback,
): [string, number][] {
  const counts = new Map<string, number>();
  for (const terms of top) {
    for (const term of new Set(terms)) {
      if (!query.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, feedback.terms)
    .map(([term, count]) => [term, feedback.weight * count / feedback.items]);
}
