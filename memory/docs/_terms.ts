/**
 * The words a document is indexed by, and the content's own among them. The index keeps the
 * words of summary and content (`terms`) and how many of the last are the content's
 * (`content_terms`): recall's pooled ranking scores a document by its content's words, and
 * reading them back costs far less than cutting the content with jieba again each turn.
 */
import type { MemoryDocument } from "../../core/mod.ts";
import { textForScoring } from "../../core/mod.ts";
import type { TextAnalyzer } from "../text/keywords.ts";

/** A document's analyzed words: the summary's, then the content's last `content` of them. */
export interface DocTerms {
  words: string[];
  /** How many of `words`, at the end, are the content's (its `analyzer.tokenize`). */
  content: number;
}

/**
 * The words of `doc`: the analyzer's tokens of `textForScoring(summary + "\n" + content)`,
 * which are the summary's followed by the content's (no token, stamp or NFKC and case mapping
 * crosses a line break: tests/memory/docs/terms_test.ts), so both are cut once.
 */
export function docTerms(analyzer: TextAnalyzer, doc: MemoryDocument): DocTerms {
  const summary = analyzer.tokenize(textForScoring(doc.summary));
  const content = analyzer.tokenize(textForScoring(doc.content));
  return { words: [...summary, ...content], content: content.length };
}

/**
 * The content's words of an index row, from its `terms` (space-separated; a word holds no
 * space) and `content_terms`; undefined when the row does not know them (indexed before they
 * were kept, or without its body).
 */
export function contentWords(row: Record<string, unknown>): string[] | undefined {
  const { terms, content_terms: count } = row;
  if (typeof row.content !== "string" || typeof terms !== "string") return undefined;
  if (typeof count !== "number" && typeof count !== "bigint") return undefined;
  const words = terms === "" ? [] : terms.split(" ");
  const n = Number(count);
  return n <= words.length ? words.slice(words.length - n) : undefined;
}
