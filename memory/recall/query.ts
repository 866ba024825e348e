/**
 * The recall query: the conversation's recent turns, newest last, each weighted by recency
 * (the newest 1, the one before `decay`, then `decay²`, …). The dense side embeds the turns one
 * by one and adds their vectors with those weights; the keyword side gives each word the summed
 * weight of the turns that hold it. Measured on MADial-Bench, turn-by-turn with recency weights
 * beat embedding the dialogue as one text (docs/memory.md "Hybrid recall").
 * @module
 */
import type { Embedder } from "../../core/mod.ts";
import { l2Normalize } from "../embed/fingerprint.ts";
import type { TextAnalyzer } from "../text/keywords.ts";

/** What recall is asked: recent turns, oldest first, the current input last. */
export interface RecallQuery {
  turns: readonly string[];
  /** Weight of a turn relative to the one after it, in (0, 1]; 1 weighs all turns alike. */
  decay: number;
}

/** A query of one text (an explicit search: `doc_query`, `knowledge_search`). */
export function singleTurn(text: string): RecallQuery {
  return { turns: [text], decay: 1 };
}

/** The turns that carry words, each with its weight, oldest first. */
export function weightedTurns(query: RecallQuery): { text: string; weight: number }[] {
  const turns = query.turns.map((t) => t.trim()).filter((t) => t !== "");
  const decay = Math.min(1, Math.max(Number.EPSILON, query.decay));
  return turns.map((text, i) => ({ text, weight: decay ** (turns.length - 1 - i) }));
}

/** The query's text, turns joined by newlines (for logs and single-text consumers). */
export function queryText(query: RecallQuery): string {
  return weightedTurns(query).map((t) => t.text).join("\n");
}

/**
 * A query's vector, or its promise: a tier given the promise does its keyword work first, while
 * the vector is computed (the sentence model runs in a Worker).
 */
export type QueryVector = Float32Array | Promise<Float32Array>;

/** A turn's vector already at hand (a window event's stored one), by the turn's text. */
export type KnownVector = (text: string) => Float32Array | undefined;

/**
 * The query vector: the recency-weighted sum of the turns' vectors, L2-normalised (the zero
 * vector when no turn has words). A turn whose vector `known` has (the window's events keep
 * theirs) is not embedded again; the rest go in one embed call. Rejects as the embedder does.
 */
export async function embedQuery(
  query: RecallQuery,
  embedder: Embedder,
  signal?: AbortSignal,
  known?: KnownVector,
): Promise<Float32Array> {
  const turns = weightedTurns(query);
  const sum = new Float32Array(embedder.dim);
  if (turns.length === 0) return sum;
  const vectors = turns.map((t) => known?.(t.text));
  const missing = turns.flatMap((t, i) => vectors[i] === undefined ? [t.text] : []);
  if (missing.length > 0) {
    const fresh = await embedder.embed(missing, { signal });
    let next = 0;
    vectors.forEach((v, i) => vectors[i] = v ?? fresh[next++]);
  }
  vectors.forEach((v, i) => {
    const w = turns[i]!.weight;
    for (let j = 0; j < sum.length; j++) sum[j]! += w * (v?.[j] ?? 0);
  });
  return l2Normalize(sum);
}

/** The query's words with their weights (summed over the turns holding them), for BM25. */
export function queryTerms(query: RecallQuery, analyzer: TextAnalyzer): Map<string, number> {
  const weights = new Map<string, number>();
  for (const turn of weightedTurns(query)) {
    for (const term of analyzer.tokenize(turn.text)) {
      weights.set(term, (weights.get(term) ?? 0) + turn.weight);
    }
  }
  return weights;
}
