/**
 * The default vector space, needing no download: words (jieba for Chinese) and character
 * n-grams, signed feature hashing into `dim` buckets, sublinear term frequency, L2-normalised.
 * Deterministic everywhere (FNV-1a + fmix32, no randomness), so its fingerprint is stable.
 * @module
 */
import type { Embedder, EmbedOptions, Modality } from "../../core/mod.ts";
import { formatFingerprint, hash32, l2Normalize } from "./fingerprint.ts";
import { createTextAnalyzer, normalizeText, type TextAnalyzer } from "../text/keywords.ts";
import { isStopWord } from "../text/stopwords.ts";

/** Options of createHashEmbedder. */
export interface HashEmbedderOptions {
  /** Buckets, default 512. */
  dim?: number;
  /** Defaults to an analyzer over the process-wide jieba, built on first embed. */
  analyzer?: TextAnalyzer;
}

const VERSION = "v1";
const HAN_RUN = /\p{Script=Han}+/gv;
const WORD = /^[\p{L}\p{N}']+$/v;
/** Feature weights: whole words carry most; n-grams catch shared characters and morphology. */
const WEIGHT = { word: 1, uni: 0.4, bi: 0.8, tri: 0.5, sub: 0.2 } as const;

interface Feature {
  weight: number;
  tf: number;
}

/** The hashed n-gram + word embedder (`hash-ngram:v1:<dim>`). */
export function createHashEmbedder(options: HashEmbedderOptions = {}): Embedder {
  const dim = options.dim ?? 512;
  if (!Number.isInteger(dim) || dim < 8) {
    throw new RangeError(`Cannot create hash embedder: dimension "${dim}" is below 8`);
  }
  let analyzer: Promise<TextAnalyzer> | undefined = options.analyzer
    ? Promise.resolve(options.analyzer)
    : undefined;
  return {
    fingerprint: formatFingerprint({ model: "hash-ngram", version: VERSION, dim }),
    dim,
    modalities: ["text"] as readonly Modality[],
    async embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
      opts.signal?.throwIfAborted();
      analyzer ??= createTextAnalyzer();
      const ready = await analyzer.catch((error) => {
        analyzer = undefined;
        throw error;
      });
      return texts.map((text) => hashVector(features(text, ready), dim));
    },
  };
}

/** Weighted features of one text: `w:` words, `c:` Han 1–3-grams, `g:` word-internal 3-grams. */
function features(text: string, analyzer: TextAnalyzer): Map<string, Feature> {
  const counts = new Map<string, Feature>();
  const add = (key: string, weight: number) => {
    const feature = counts.get(key);
    if (feature) feature.tf++;
    else counts.set(key, { weight, tf: 1 });
  };
  for (const word of analyzer.tokenize(text)) {
    add(`w:${word}`, WEIGHT.word);
    if (WORD.test(word) && !/\p{Script=Han}/v.test(word) && word.length > 3) {
      const padded = `<${word}>`;
      for (let i = 0; i + 3 <= padded.length; i++) add(`g:${padded.slice(i, i + 3)}`, WEIGHT.sub);
    }
  }
  for (const [run] of normalizeText(text).matchAll(HAN_RUN)) {
    const chars = [...run];
    chars.forEach((ch, i) => {
      if (!isStopWord(ch)) add(`c:${ch}`, WEIGHT.uni);
      if (i + 2 <= chars.length) add(`c:${ch}${chars[i + 1]}`, WEIGHT.bi);
      if (i + 3 <= chars.length) add(`c:${ch}${chars[i + 1]}${chars[i + 2]}`, WEIGHT.tri);
    });
  }
  return counts;
}

/** Signed hashing with sublinear tf: each feature adds ±weight·(1 + ln tf) to one bucket. */
function hashVector(counts: Map<string, Feature>, dim: number): Float32Array {
  const vector = new Float32Array(dim);
  for (const [key, { weight, tf }] of counts) {
    const h = hash32(key);
    const sign = (h & 0x80000000) === 0 ? 1 : -1;
    vector[h % dim]! += sign * weight * (1 + Math.log(tf));
  }
  return l2Normalize(vector);
}
