/**
 * Fingerprints and vector helpers shared by every embedder. A fingerprint is
 * `model:version:dim` (`hash-ngram:v1:512`, `static/cc.zh.300:v1:300`); vectors are compared
 * only within one fingerprint, and a stored vector from another space is recomputed.
 * @module
 */

/** The three parts of a fingerprint. */
export interface FingerprintParts {
  /** Provider and model, e.g. `hash-ngram`, `http/nomic-embed-text`; no `:` inside. */
  model: string;
  /** Version of the algorithm that turns the model's output into a vector, e.g. `v1`. */
  version: string;
  dim: number;
}

/** `model:version:dim`; characters outside `[A-Za-z0-9._/+@#-]` in the model become `_`. */
export function formatFingerprint(parts: FingerprintParts): string {
  if (!Number.isInteger(parts.dim) || parts.dim <= 0) {
    throw new RangeError(`Cannot format fingerprint: dimension "${parts.dim}" is not positive`);
  }
  const model = parts.model.replace(/[^A-Za-z0-9._/+@#-]/g, "_");
  return `${model}:${parts.version}:${parts.dim}`;
}

/** Parse `model:version:dim`; undefined when it is not one. */
export function parseFingerprint(fingerprint: string): FingerprintParts | undefined {
  const match = /^([^:]+):([^:]+):([1-9]\d*)$/.exec(fingerprint);
  if (!match) return undefined;
  return { model: match[1]!, version: match[2]!, dim: Number(match[3]) };
}

/** True when vectors of fingerprint `a` may be compared with vectors of fingerprint `b`. */
export function sameSpace(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && a === b && parseFingerprint(a) !== undefined;
}

/** Scale `vector` to unit length in place (a zero vector stays zero); returns it. */
export function l2Normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  if (sum > 0) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = 0; i < vector.length; i++) vector[i]! *= inv;
  }
  return vector;
}

/** Cosine of two equal-length vectors; 0 when either is zero. Throws RangeError on a length mismatch. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) {
    throw new RangeError(`Cannot compare vectors of dimensions ${a.length} and ${b.length}`);
  }
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!, y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** 32-bit FNV-1a of the UTF-16 code units of `text`, finished with murmur3's fmix32. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
