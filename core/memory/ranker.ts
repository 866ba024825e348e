/**
 * The relevance port the token economy cuts by: tool search, and the prompt sections that do not
 * fit their budget (skills, persona paragraphs, timeline events). memory/ implements it with the
 * memory tiers' own hybrid search (BM25 over the analyzer's words fused with dense vectors); the
 * lexical ranker here serves a kernel built without memory (tests, bare embeddings).
 */

/** Options of TextRanker.rank. */
export interface TextRankOptions {
  signal?: AbortSignal;
}

/**
 * Scores texts against a query. `rank` resolves one score per text, in order: higher is more
 * relevant, 0 means no match at all. It rejects only when `signal` aborts; a failing vector
 * layer degrades to keyword scores.
 */
export interface TextRanker {
  rank(query: string, texts: readonly string[], options?: TextRankOptions): Promise<number[]>;
}

const WORDS = /\p{Script=Han}|[\p{L}\p{N}]+/gu;

/** Lower-cased words and single Han characters of `text` (`files_edit` → files, edit). */
export function lexicalTerms(text: string): string[] {
  return (text.toLowerCase().replaceAll("_", " ").match(WORDS) ?? []).filter((w) => w.length > 0);
}

/**
 * A ranker by shared words, each weighted by its rarity among the texts (a plain IDF sum), a
 * word that starts another (edit / editing) counting half. No vectors, no segmenter.
 */
export const lexicalRanker: TextRanker = {
  rank(query, texts) {
    const terms = [...new Set(lexicalTerms(query))];
    const docs = texts.map((t) => new Set(lexicalTerms(t)));
    const weight = (term: string) => {
      const df = docs.filter((d) => d.has(term)).length;
      return Math.log(1 + texts.length / (1 + df));
    };
    const weights = new Map(terms.map((t) => [t, weight(t)]));
    return Promise.resolve(docs.map((doc) => {
      let score = 0;
      for (const term of terms) {
        if (doc.has(term)) score += weights.get(term)!;
        else if (
          term.length >= 3 &&
          [...doc].some((w) => w.startsWith(term) || term.startsWith(w) && w.length >= 3)
        ) {
          score += weights.get(term)! / 2;
        }
      }
      return score;
    }));
  },
};
