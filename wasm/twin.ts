/**
 * Plain TypeScript twins of the wasm kernels, with the same semantics. They are the fallback
 * implementation (`loadHotLoops({ implementation: "ts" })`) and the reference the parity test
 * compares the wasm module against. Sums run in f64 here and in f32 in wasm, so vector scores
 * agree to about 1e-5; Jaccard scores agree exactly.
 * @module
 */
import type { ScoredIndex, TopKOptions } from "./_types.ts";

/** Throws `RangeError` unless `query` is non-empty and `matrix` holds whole rows of its length. */
export function assertShape(query: Float32Array, matrix: Float32Array): number {
  const dim = query.length;
  if (dim === 0) throw new RangeError("Cannot score vectors: the query is empty");
  if (matrix.length % dim !== 0) {
    throw new RangeError(
      `Cannot score vectors: matrix length ${matrix.length} is not a multiple of dimension ${dim}`,
    );
  }
  return matrix.length / dim;
}

/** Checks that `dim` is a positive integer; throws `RangeError` otherwise. */
export function assertDim(dim: number): void {
  if (!Number.isInteger(dim) || dim <= 0) {
    throw new RangeError(
      `Cannot create a vector set: dimension must be a positive integer, got ${dim}`,
    );
  }
}

/** Cosine of `query` against every row of `matrix`; a zero vector scores 0. */
export function cosineScoresTs(query: Float32Array, matrix: Float32Array): Float32Array {
  const n = assertShape(query, matrix);
  const dim = query.length;
  let qq = 0;
  for (let j = 0; j < dim; j++) qq += query[j]! * query[j]!;
  const out = new Float32Array(n);
  for (let i = 0, row = 0; i < n; i++, row += dim) {
    let dot = 0;
    let rr = 0;
    for (let j = 0; j < dim; j++) {
      const r = matrix[row + j]!;
      dot += query[j]! * r;
      rr += r * r;
    }
    const denom = Math.sqrt(qq * rr);
    out[i] = denom > 0 ? dot / denom : 0;
  }
  return out;
}

/** Dot product of `query` against every row of `matrix` (for pre-normalised vectors). */
export function dotScoresTs(query: Float32Array, matrix: Float32Array): Float32Array {
  const n = assertShape(query, matrix);
  const dim = query.length;
  const out = new Float32Array(n);
  for (let i = 0, row = 0; i < n; i++, row += dim) {
    let dot = 0;
    for (let j = 0; j < dim; j++) dot += query[j]! * matrix[row + j]!;
    out[i] = dot;
  }
  return out;
}

/** The best `k` rows of `matrix` for `query`: score descending, ties by lower index. */
export function topKTs(
  query: Float32Array,
  matrix: Float32Array,
  options: TopKOptions,
): ScoredIndex[] {
  const scores = options.metric === "dot"
    ? dotScoresTs(query, matrix)
    : cosineScoresTs(query, matrix);
  return selectTopK(scores, options.k);
}

/**
 * The `k` best entries of `scores`: score descending, ties by lower index first; NaN ranks
 * as -Infinity. Both implementations use it, so ordering never depends on the kernel.
 */
export function selectTopK(scores: Float32Array, k: number): ScoredIndex[] {
  if (!Number.isInteger(k) || k < 0) {
    throw new RangeError(`Cannot select top k: k must be a non-negative integer, got ${k}`);
  }
  const n = scores.length;
  const size = Math.min(k, n);
  if (size === 0) return [];
  // A min-heap of the best `size` seen so far; the root is the worst of them.
  const heap = new Int32Array(size);
  let filled = 0;
  for (let i = 0; i < n; i++) {
    if (filled < size) {
      heap[filled] = i;
      siftUp(heap, filled++, scores);
    } else if (ranksAbove(i, heap[0]!, scores)) {
      heap[0] = i;
      siftDown(heap, size, scores);
    }
  }
  const order = Array.from(heap).sort((a, b) => (ranksAbove(a, b, scores) ? -1 : 1));
  return order.map((index) => ({ index, score: scores[index]! }));
}

function rank(scores: Float32Array, i: number): number {
  const s = scores[i]!;
  return Number.isNaN(s) ? -Infinity : s;
}

function ranksAbove(a: number, b: number, scores: Float32Array): boolean {
  const sa = rank(scores, a);
  const sb = rank(scores, b);
  return sa > sb || (sa === sb && a < b);
}

function siftUp(heap: Int32Array, at: number, scores: Float32Array): void {
  let i = at;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!ranksAbove(heap[parent]!, heap[i]!, scores)) break;
    [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
    i = parent;
  }
}

function siftDown(heap: Int32Array, size: number, scores: Float32Array): void {
  let i = 0;
  while (true) {
    const l = 2 * i + 1;
    if (l >= size) return;
    const r = l + 1;
    const worse = r < size && ranksAbove(heap[l]!, heap[r]!, scores) ? r : l;
    if (!ranksAbove(heap[i]!, heap[worse]!, scores)) return;
    [heap[i], heap[worse]] = [heap[worse]!, heap[i]!];
    i = worse;
  }
}

/** Key of the "bigram" of a one-character text: (char, LONE); no code point reaches it. */
const LONE = 0x1fffff;
/** Bigram key (a << 21) | b, computed in f64 where it is exact (42 bits). */
const SHIFT = 0x200000;

/** The set of bigram keys of `text`, cleaned as the wasm kernel does (see docs/wasm.md). */
export function bigramKeysTs(text: string): Set<number> {
  const s = text.toLowerCase();
  const keys = new Set<number>();
  let prev = -1;
  let pendingSpace = false;
  for (let i = 0; i < s.length;) {
    const cp = s.codePointAt(i)!;
    i += cp > 0xffff ? 2 : 1;
    if (isSpace(cp)) {
      pendingSpace = prev >= 0;
      continue;
    }
    if (pendingSpace) {
      keys.add(prev * SHIFT + 0x20);
      prev = 0x20;
      pendingSpace = false;
    }
    if (prev >= 0) keys.add(prev * SHIFT + cp);
    prev = cp;
  }
  if (keys.size === 0 && prev >= 0) keys.add(prev * SHIFT + LONE);
  return keys;
}

/** The same set as JavaScript's `\s`, written out so the wasm kernel can match it. */
export function isSpace(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x1680) return c === 0xa0;
  return c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

function jaccardOfSets(a: Set<number>, b: Set<number>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let inter = 0;
  for (const key of small) if (large.has(key)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Character-bigram Jaccard similarity of two texts, in [0, 1]. */
export function bigramJaccardTs(a: string, b: string): number {
  return jaccardOfSets(bigramKeysTs(a), bigramKeysTs(b));
}

/** Bigram Jaccard of `query` against each candidate (f32 scores, candidate order). */
export function bigramJaccardBatchTs(query: string, candidates: readonly string[]): Float32Array {
  const q = bigramKeysTs(query);
  const out = new Float32Array(candidates.length);
  for (let i = 0; i < candidates.length; i++) {
    out[i] = jaccardOfSets(q, bigramKeysTs(candidates[i]!));
  }
  return out;
}

/** Row length in bytes of an int8 vector of `dim` components: `dim` rounded up to 16. */
export function i8Stride(dim: number): number {
  return Math.ceil(dim / 16) * 16;
}

/**
 * Quantizes `vector` symmetrically into `out` (max |x| → ±127, the rest of `out` zeroed) and
 * returns the f32 scale, so x ≈ out[j] * scale; a zero vector has scale 0. Throws
 * `RangeError` on a non-finite component. Both implementations quantize with this function.
 */
export function quantizeI8(vector: Float32Array, out: Int8Array): number {
  let max = 0;
  for (let j = 0; j < vector.length; j++) {
    const x = vector[j]!;
    if (!Number.isFinite(x)) {
      throw new RangeError(`Cannot quantize a vector: component ${j} is ${x}`);
    }
    const a = Math.abs(x);
    if (a > max) max = a;
  }
  out.fill(0);
  if (max === 0) return 0;
  const inv = 127 / max;
  for (let j = 0; j < vector.length; j++) {
    out[j] = Math.max(-127, Math.min(127, Math.round(vector[j]! * inv)));
  }
  return Math.fround(max / 127);
}

/**
 * Twin of the wasm `i8Scores` kernel: for each of `n` rows of `stride` bytes, the i32 dot
 * with `query` (wrapping like wasm) times the row's scale, rounded to f32 as wasm does.
 */
export function i8ScoresTs(
  query: Int8Array,
  rows: Int8Array,
  scales: Float32Array,
  n: number,
): Float32Array {
  const stride = query.length;
  const out = new Float32Array(n);
  for (let i = 0, base = 0; i < n; i++, base += stride) {
    let dot = 0;
    for (let j = 0; j < stride; j++) dot += query[j]! * rows[base + j]!;
    out[i] = Math.fround(dot | 0) * scales[i]!;
  }
  return out;
}

/** Bytes of a sign code for int8 rows of `stride` bytes: one bit a component, 16-byte padded. */
export function signCodeBytes(stride: number): number {
  return Math.ceil(stride / 128) * 16;
}

/**
 * Twin of the wasm `signCodes` kernel for one row: bit j of `out` (byte j >> 3, bit j & 7) is
 * set when `row[j]` > 0; `out` is zeroed past the row.
 */
export function signCodeTs(row: Int8Array, out: Uint8Array): void {
  out.fill(0);
  for (let j = 0; j < row.length; j++) if (row[j]! > 0) out[j >> 3]! |= 1 << (j & 7);
}

const POPCOUNT = Uint8Array.from({ length: 256 }, (_, b) => {
  let n = 0;
  for (let x = b; x > 0; x >>= 1) n += x & 1;
  return n;
});

/** Twin of the wasm `hammingScan` kernel: each of `n` codes' distance to `query`'s code. */
export function hammingTs(query: Uint8Array, codes: Uint8Array, n: number): Uint16Array {
  const bytes = query.length;
  const out = new Uint16Array(n);
  for (let i = 0, base = 0; i < n; i++, base += bytes) {
    let d = 0;
    for (let j = 0; j < bytes; j++) d += POPCOUNT[query[j]! ^ codes[base + j]!]!;
    out[i] = d;
  }
  return out;
}

/**
 * Twin of the wasm `nearestRows` kernel: the `p` rows with the smallest `distances`, in
 * ascending row order; at the cut-off distance the lowest rows go in.
 */
export function nearestRowsTs(distances: Uint16Array, p: number): Int32Array {
  const size = Math.min(p, distances.length);
  if (size <= 0) return new Int32Array(0);
  const counts = new Int32Array(65537);
  for (const d of distances) counts[d]!++;
  let cut = 0;
  let below = 0;
  for (; below + counts[cut]! < size; cut++) below += counts[cut]!;
  let ties = size - below;
  const out = new Int32Array(size);
  let next = 0;
  for (let i = 0; i < distances.length && next < size; i++) {
    const d = distances[i]!;
    if (d < cut || (d === cut && ties-- > 0)) out[next++] = i;
  }
  return out;
}
