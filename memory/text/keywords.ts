/**
 * Tokens and keywords for every memory tier: jieba words for Chinese, lower-cased (lightly
 * stemmed) words for English, stop words out, keywords ranked by TF-IDF with a POS filter.
 * jieba-wasm has no keyword extraction of its own, so the IDF table lives here: a built-in
 * prior by part of speech and length, blended with document frequencies learned from the corpus.
 * @module
 */
import { LruMap } from "../../core/mod.ts";
import { loadSegmenter, type Segmenter } from "./jieba.ts";
import { isStopWord } from "./stopwords.ts";

export type { Segmenter, TaggedWord } from "./jieba.ts";
export { loadSegmenter } from "./jieba.ts";

/** A keyword and its TF-IDF score. */
export interface Keyword {
  word: string;
  score: number;
}

/** Options of keywords(). */
export interface KeywordOptions {
  /** Most keywords returned; default 10. */
  limit?: number;
}

/** Options of tokenize(). */
export interface TokenizeOptions {
  /** Keep stop words (default false). */
  keepStopWords?: boolean;
}

/** One piece of text as the tokenizer reads it. */
interface Piece {
  word: string;
  /** jieba POS tag for Chinese words, "eng" for other scripts. */
  tag: string;
  han: boolean;
}

const RUNS = /\p{Script=Han}+|[[\p{L}\p{N}]--\p{Script=Han}]+(?:['’][[\p{L}]--\p{Script=Han}]+)*/gv;
const HAN = /^\p{Script=Han}+$/v;
const KEEP_TAG = /^(n|v|vn|eng|x|i|l|j)/;
const NAME_TAG = /^(nr|ns|nt|nz|nw)/;

/**
 * Document frequencies learned incrementally from the corpus, blended with a prior so that
 * keywords are sensible from the first text on. Not thread-shared; one table per corpus.
 */
export class IdfTable {
  #df = new Map<string, number>();
  #docs = 0;

  /** Number of documents learned. */
  get documents(): number {
    return this.#docs;
  }

  /** Count one document made of `words` (duplicates count once). */
  learn(words: Iterable<string>): void {
    this.#docs++;
    for (const word of new Set(words)) this.#df.set(word, (this.#df.get(word) ?? 0) + 1);
  }

  /** IDF of `word`: the learned value weighted by corpus size, the rest from `prior`. */
  idf(word: string, prior: number): number {
    const n = this.#docs;
    if (n === 0) return prior;
    const learned = Math.log((n + 1) / ((this.#df.get(word) ?? 0) + 1)) + 1;
    const weight = n / (n + 20);
    return weight * learned + (1 - weight) * prior;
  }
}

/** Tokenizer and keyword extractor over one IDF table; methods are synchronous once built. */
export interface TextAnalyzer {
  /** The IDF table keywords are weighted with. */
  readonly idf: IdfTable;
  /** Normalised words in order: jieba words for Han text, lower-cased stemmed words otherwise. */
  tokenize(text: string, options?: TokenizeOptions): string[];
  /** Up to `limit` keywords (nouns, verbs, names; no stop words), best first. */
  keywords(text: string, options?: KeywordOptions): Keyword[];
  /** Add `text` to the IDF table as one document. */
  learn(text: string): void;
}

/** Options of createTextAnalyzer. */
export interface TextAnalyzerOptions {
  /** Shared or persisted table; a fresh empty one by default. */
  idf?: IdfTable;
  /** Defaults to the process-wide jieba (loaded on first use). */
  segmenter?: Segmenter;
}

/** Build an analyzer; loads jieba on first use (rejects with EmbeddingError when it cannot). */
export async function createTextAnalyzer(
  options: TextAnalyzerOptions = {},
): Promise<TextAnalyzer> {
  const segmenter = options.segmenter ?? await loadSegmenter();
  const idf = options.idf ?? new IdfTable();
  // Recall tokenizes the same window events and documents every turn (its pooled BM25 is built
  // over them), and jieba takes most of that time: the latest cuts are remembered.
  const tokenizeText = (text: string, keep: boolean) =>
    pieces(text, segmenter, false).filter((p) => keep || !isStopWord(p.word)).map((p) => p.word);
  const words = remembered(REMEMBERED_CUTS, (text) => tokenizeText(text, false));
  const allWords = remembered(REMEMBERED_CUTS, (text) => tokenizeText(text, true));
  const tagged = remembered(REMEMBERED_TAGS, (text) => pieces(text, segmenter, true));
  return {
    idf,
    tokenize: (text, opts = {}) => [...(opts.keepStopWords ? allWords : words)(text)],
    keywords: (text, opts = {}) => rank(tagged(text), idf, opts.limit ?? 10),
    learn: (text) => idf.learn(words(text)),
  };
}

/** Tokens of `text` (stop words out) with the process-wide jieba; see TextAnalyzer.tokenize. */
export async function tokenize(text: string, options?: TokenizeOptions): Promise<string[]> {
  return (await createTextAnalyzer()).tokenize(text, options);
}

/** Keywords of `text` with the built-in IDF prior; see TextAnalyzer.keywords. */
export async function keywords(text: string, options?: KeywordOptions): Promise<Keyword[]> {
  return (await createTextAnalyzer()).keywords(text, options);
}

/** NFKC and lower case: the form every token is compared in. */
export function normalizeText(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

/** Harman's S-stemmer: plural endings only, so stems stay readable ("cities" → "city"). */
export function stemEnglish(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  if (word.length > 4 && word.endsWith("ies") && !/[ae]ies$/.test(word)) {
    return word.slice(0, -3) + "y";
  }
  if (word.endsWith("es") && !/[aeo]es$/.test(word)) return word.slice(0, -1);
  if (word.endsWith("s") && !/[us]s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Texts longer than this are cut every time: few come back, and each would hold much memory. */
const MAX_REMEMBERED_TEXT = 1000;
/** Cuts remembered per kind (least recently used go first): ~6 MB at most, far less usually. */
const REMEMBERED_CUTS = 1024;
/**
 * Tagged cuts remembered (keywords): the graph's recall asks again for the input and the recent
 * turns (`core.memory.recall.turns`, at most 64), the rest ask once (an archived document's
 * keywords). 1,024 of them held ~0.9 MB after 1,000 turns (rss_growth_1k_turns_mb), nearly all
 * documents' that never came back.
 */
const REMEMBERED_TAGS = 128;

/** `cut` remembering its latest `size` results; a text's cut never changes, callers only read it. */
function remembered<T>(size: number, cut: (text: string) => T): (text: string) => T {
  const memo = new LruMap<string, T>(size);
  return (text) => {
    if (text.length > MAX_REMEMBERED_TEXT) return cut(text);
    return memo.get(text) ?? memo.set(text, cut(text));
  };
}

function pieces(text: string, segmenter: Segmenter, tagged: boolean): Piece[] {
  const out: Piece[] = [];
  for (const [run] of normalizeText(text).matchAll(RUNS)) {
    if (!HAN.test(run)) {
      out.push({ word: stemEnglish(run.replaceAll("’", "'")), tag: "eng", han: false });
    } else if (tagged) {
      for (const { word, tag } of segmenter.tag(run)) out.push({ word, tag, han: true });
    } else {
      for (const word of segmenter.cut(run)) out.push({ word, tag: "", han: true });
    }
  }
  return out;
}

function isKeyword(piece: Piece): boolean {
  if (isStopWord(piece.word)) return false;
  if (!piece.han) return piece.word.length >= 2 && !/^\d+$/.test(piece.word);
  return [...piece.word].length >= 2 && KEEP_TAG.test(piece.tag);
}

/** IDF prior: names and longer nouns are rarer than verbs and short words. */
function prior(piece: Piece): number {
  const length = [...piece.word].length;
  if (!piece.han) return 1.5 + 0.1 * Math.min(length, 10);
  if (NAME_TAG.test(piece.tag) || piece.tag === "x") return 3;
  if (piece.tag.startsWith("n") || piece.tag === "vn") return 2 + 0.3 * Math.min(length - 2, 3);
  if (piece.tag.startsWith("v")) return 1.2;
  return 1.5;
}

function rank(all: readonly Piece[], idf: IdfTable, limit: number): Keyword[] {
  const found = new Map<string, { tf: number; prior: number; first: number }>();
  all.forEach((piece, index) => {
    if (!isKeyword(piece)) return;
    const entry = found.get(piece.word);
    if (entry) entry.tf++;
    else found.set(piece.word, { tf: 1, prior: prior(piece), first: index });
  });
  return [...found].map(([word, e]) => ({
    word,
    score: e.tf * idf.idf(word, e.prior),
    first: e.first,
  }))
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .slice(0, Math.max(0, limit))
    .map(({ word, score }) => ({ word, score }));
}
