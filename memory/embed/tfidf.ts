/**
 * The last-resort vector space: TF-IDF over Han character bigrams and other-script words,
 * with document frequencies fitted incrementally on the corpus. It needs no model and no
 * jieba. Sparse vectors compare texts directly; `embed` hashes them into `dim` buckets so
 * the space also serves the dense Embedder contract (`tfidf-hash:v1:<dim>`).
 * @module
 */
import type { Embedder, EmbedOptions, Modality } from "../../core/mod.ts";
import { formatFingerprint, hash32, l2Normalize } from "./fingerprint.ts";
import { normalizeText, stemEnglish } from "../text/keywords.ts";
import { isStopWord } from "../text/stopwords.ts";

/** A sparse, L2-normalised term vector. */
export type SparseVector = Map<string, number>;

/** Options of createTfIdfSpace. */
export interface TfIdfOptions {
  /** Buckets of the dense view, default 1024. */
  dim?: number;
}

/** A TF-IDF space that learns document frequencies as documents arrive. */
export interface TfIdfSpace extends Embedder {
  /** Documents fitted so far. */
  readonly documents: number;
  /** Count each text as one document of the corpus. */
  fit(texts: Iterable<string>): void;
  /** The sparse TF-IDF vector of `text` under the current document frequencies. */
  sparse(text: string): SparseVector;
  /** Cosine of two texts' sparse vectors, in [0, 1]. */
  similarity(a: string, b: string): number;
}

const RUNS = /\p{Script=Han}+|[[\p{L}\p{N}]--\p{Script=Han}]+/gv;
const HAN = /^\p{Script=Han}/v;

/** Terms of `text`: Han bigrams (a lone Han character stands for itself) and stemmed words. */
export function tfidfTerms(text: string): string[] {
  const terms: string[] = [];
  for (const [run] of normalizeText(text).matchAll(RUNS)) {
    if (HAN.test(run)) {
      const chars = [...run];
      if (chars.length === 1) terms.push(run);
      for (let i = 0; i + 1 < chars.length; i++) terms.push(chars[i]! + chars[i + 1]!);
    } else if (!isStopWord(run)) {
      terms.push(stemEnglish(run));
    }
  }
  return terms;
}

/** Create an empty TF-IDF space; fit it on the corpus as documents arrive. */
export function createTfIdfSpace(options: TfIdfOptions = {}): TfIdfSpace {
  const dim = options.dim ?? 1024;
  if (!Number.isInteger(dim) || dim < 8) {
    throw new RangeError(`Cannot create TF-IDF space: dimension "${dim}" is below 8`);
  }
  const df = new Map<string, number>();
  let documents = 0;
  const sparse = (text: string): SparseVector => {
    const tf = new Map<string, number>();
    for (const term of tfidfTerms(text)) tf.set(term, (tf.get(term) ?? 0) + 1);
    const out: SparseVector = new Map();
    let norm = 0;
    for (const [term, n] of tf) {
      const w = (1 + Math.log(n)) * (Math.log((documents + 1) / ((df.get(term) ?? 0) + 1)) + 1);
      out.set(term, w);
      norm += w * w;
    }
    if (norm > 0) { for (const [term, w] of out) out.set(term, w / Math.sqrt(norm)); }
    return out;
  };
  return {
    fingerprint: formatFingerprint({ model: "tfidf-hash", version: "v1", dim }),
    dim,
    modalities: ["text"] as readonly Modality[],
    get documents() {
      return documents;
    },
    fit(texts) {
      for (const text of texts) {
        documents++;
        for (const term of new Set(tfidfTerms(text))) df.set(term, (df.get(term) ?? 0) + 1);
      }
    },
    sparse,
    similarity: (a, b) => sparseCosine(sparse(a), sparse(b)),
    embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
      opts.signal?.throwIfAborted();
      return Promise.resolve(texts.map((text) => densify(sparse(text), dim)));
    },
  };
}

/** Cosine of two L2-normalised sparse vectors. */
export function sparseCosine(a: SparseVector, b: SparseVector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [term, w] of small) dot += w * (large.get(term) ?? 0);
  return dot;
}

function densify(vector: SparseVector, dim: number): Float32Array {
  const out = new Float32Array(dim);
  for (const [term, w] of vector) {
    const h = hash32(`t:${term}`);
    out[h % dim]! += (h & 0x80000000) === 0 ? w : -w;
  }
  return l2Normalize(out);
}
