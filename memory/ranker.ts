/**
 * core's TextRanker on the memory's own hybrid search, for tool_search and the prompt sections
 * cut by relevance: BM25 of the query's words over the texts themselves and the cosine in the
 * current vector space, mixed as recall mixes them (recall/mix.ts, with recall's dense weight
 * for the space). Vectors of the texts are remembered: tool descriptions, skill lines and
 * persona paragraphs come back every turn, and a model embedder is slow.
 */
import {
  type Embedder,
  errorMessage,
  type Logger,
  type TextRanker,
  type TextRankOptions,
} from "../core/mod.ts";
import type { TextAnalyzer } from "./text/keywords.ts";
import { Bm25Index } from "./text/bm25.ts";
import { type MixCandidate, mixScores } from "./recall/mix.ts";
import { type KnownVector, queryTerms, singleTurn } from "./recall/query.ts";
import { defaultRecallSettings, type RecallSettings } from "./recall/config.ts";

/** Options of createMemoryRanker. */
export interface MemoryRankerOptions {
  embedder: Embedder;
  analyzer: TextAnalyzer;
  logger: Logger;
  /** Recall's settings now (the dense weight); default the space's defaults. */
  settings?: () => RecallSettings;
  /** Texts whose vectors are remembered; default 4096. */
  cacheEntries?: number;
  /** Vectors already at hand (the window's events and the turn's input), by text. */
  known?: () => KnownVector;
}

/**
 * The least cosine a text needs to match on meaning alone: below it, with no word in common,
 * a text scores 0 (the mix normalises each side, which would make the least bad text look good).
 */
const MIN_DENSE = 0.25;

/**
 * A TextRanker on the memory's scale. When the embedder fails the texts are ranked by their
 * words alone (logged), so a broken model never hides every tool.
 */
export function createMemoryRanker(options: MemoryRankerOptions): TextRanker {
  const { embedder, analyzer, logger } = options;
  const limit = options.cacheEntries ?? 4096;
  const vectors = new Map<string, Float32Array>();
  const embed = async (texts: readonly string[], rank: TextRankOptions) => {
    const lookup = options.known?.();
    for (const text of texts) {
      const held = vectors.has(text) ? undefined : lookup?.(text);
      if (held?.length === embedder.dim) vectors.set(text, held);
    }
    const missing = [...new Set(texts.filter((t) => !vectors.has(t)))];
    if (missing.length > 0) {
      const fresh = await embedder.embed(missing, { signal: rank.signal });
      missing.forEach((text, i) => vectors.set(text, fresh[i]!));
      for (const old of vectors.keys()) {
        if (vectors.size <= limit) break;
        vectors.delete(old);
      }
    }
    return texts.map((t) => vectors.get(t) ?? new Float32Array(embedder.dim));
  };
  const settings = options.settings ?? (() => defaultRecallSettings(embedder));
  return {
    async rank(query, texts, rank = {}) {
      if (texts.length === 0 || query.trim() === "") return texts.map(() => 0);
      const keyword = keywordScores(query, texts, analyzer);
      let dense: (number | undefined)[];
      try {
        const [q, ...all] = await embed([query, ...texts], rank);
        dense = all.map((v) => cosine(q!, v));
      } catch (error) {
        if (rank.signal?.aborted) throw error;
        logger.warn("Ranking by vectors failed; ranking by words alone", {
          error: errorMessage(error),
        });
        dense = texts.map(() => undefined);
      }
      const candidates: MixCandidate[] = texts.map((_, i) => ({
        id: String(i),
        keyword: keyword.get(i),
        dense: dense[i],
      }));
      const scores = texts.map(() => 0);
      for (const mixed of mixScores(candidates, { dense: settings().denseWeight })) {
        const matched = (mixed.keyword ?? 0) > 0 || (mixed.dense ?? 0) >= MIN_DENSE;
        scores[Number(mixed.id)] = matched ? Math.max(mixed.score, Number.EPSILON) : 0;
      }
      return scores;
    },
  };
}

/** BM25 of the query's words over the texts themselves, by index (texts without one absent). */
function keywordScores(query: string, texts: readonly string[], analyzer: TextAnalyzer) {
  const words = new Bm25Index();
  texts.forEach((text, i) => words.add(String(i), analyzer.tokenize(text)));
  const terms = queryTerms(singleTurn(query), analyzer);
  return new Map(
    words.search([...terms.keys()], texts.length, terms).map((h) => [Number(h.id), h.score]),
  );
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * (b[i] ?? 0);
  return dot; // both L2-normalised by the Embedder contract
}
