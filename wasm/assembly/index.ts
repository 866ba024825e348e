// @ts-nocheck: AssemblyScript source (load<T>, v128, usize); asc type-checks it, not deno.
// HomeAgent hot loops, AssemblyScript. Raw-pointer kernels over the exported linear memory.
// Build with `deno task build:wasm` (flags: -O3 --runtime stub --noAssert --enable simd).
// The loader (wasm/mod.ts) owns the layout: it reserves regions with `alloc`, writes inputs
// through typed-array views, calls a kernel and reads the outputs back.
//
// Every kernel has a plain TypeScript twin in wasm/twin.ts with the same semantics; a parity
// test (tests/wasm/hot_loops_test.ts) keeps them honest.

// ---------------------------------------------------------------------------------------
// Allocator: a bump region starting at __heap_base. `reset` frees everything at once.
// Memory only grows; callers must re-create their views after any `alloc` (grow detaches).

const PAGE_BYTES: usize = 65536;
let bump: usize = 0;

function heapStart(): usize {
  return (__heap_base + 15) & ~(<usize> 15);
}

/** Reserves `bytes` bytes (16-byte aligned) and returns their address; traps when out of memory. */
export function alloc(bytes: usize): usize {
  if (bump == 0) bump = heapStart();
  const ptr = bump;
  const end = (ptr + bytes + 15) & ~(<usize> 15);
  const have = (<usize> memory.size()) * PAGE_BYTES;
  if (end > have) {
    const need = <i32> ((end - have + PAGE_BYTES - 1) / PAGE_BYTES);
    if (memory.grow(need) < 0) unreachable();
  }
  bump = end;
  return ptr;
}

/** Frees every allocation: the next `alloc` starts again at the heap base. */
export function reset(): void {
  bump = heapStart();
}

// ---------------------------------------------------------------------------------------
// Vector kernels. Matrices are row-major f32: row i starts at matPtr + i * dim * 4.

/** Cosine of one query against `n` rows (scalar); a zero vector scores 0. Writes n f32. */
export function cosineBatch(queryPtr: usize, matPtr: usize, n: i32, dim: i32, outPtr: usize): void {
  let qq: f32 = 0;
  for (let j = 0; j < dim; j++) {
    const q = load<f32>(queryPtr + (<usize> j << 2));
    qq += q * q;
  }
  const rowBytes = <usize> dim << 2;
  let row = matPtr;
  for (let i = 0; i < n; i++) {
    let dot: f32 = 0;
    let rr: f32 = 0;
    for (let j = 0; j < dim; j++) {
      const off = <usize> j << 2;
      const r = load<f32>(row + off);
      dot += load<f32>(queryPtr + off) * r;
      rr += r * r;
    }
    store<f32>(outPtr + (<usize> i << 2), cosineOf(dot, qq, rr));
    row += rowBytes;
  }
}

/** Cosine of one query against `n` rows with f32x4 SIMD; same semantics as `cosineBatch`. */
export function cosineBatchSimd(
  queryPtr: usize,
  matPtr: usize,
  n: i32,
  dim: i32,
  outPtr: usize,
): void {
  const qq = dotSimd(queryPtr, queryPtr, dim);
  const rowBytes = <usize> dim << 2;
  const wide = dim & ~3;
  const wide8 = dim & ~7;
  let row = matPtr;
  for (let i = 0; i < n; i++) {
    // Two accumulator pairs halve the add-latency chain: the scan then runs at memory speed.
    let vd = f32x4.splat(0);
    let vr = f32x4.splat(0);
    let vd2 = f32x4.splat(0);
    let vr2 = f32x4.splat(0);
    let j = 0;
    for (; j < wide8; j += 8) {
      const off = <usize> j << 2;
      const r = v128.load(row + off);
      const r2 = v128.load(row + off, 16);
      vd = f32x4.add(vd, f32x4.mul(v128.load(queryPtr + off), r));
      vr = f32x4.add(vr, f32x4.mul(r, r));
      vd2 = f32x4.add(vd2, f32x4.mul(v128.load(queryPtr + off, 16), r2));
      vr2 = f32x4.add(vr2, f32x4.mul(r2, r2));
    }
    for (; j < wide; j += 4) {
      const off = <usize> j << 2;
      const r = v128.load(row + off);
      vd = f32x4.add(vd, f32x4.mul(v128.load(queryPtr + off), r));
      vr = f32x4.add(vr, f32x4.mul(r, r));
    }
    let dot = sumLanes(f32x4.add(vd, vd2));
    let rr = sumLanes(f32x4.add(vr, vr2));
    for (let j = wide; j < dim; j++) {
      const off = <usize> j << 2;
      const r = load<f32>(row + off);
      dot += load<f32>(queryPtr + off) * r;
      rr += r * r;
    }
    store<f32>(outPtr + (<usize> i << 2), cosineOf(dot, qq, rr));
    row += rowBytes;
  }
}

/** Dot product of one query against `n` rows (scalar), for pre-normalised vectors. */
export function dotBatch(queryPtr: usize, matPtr: usize, n: i32, dim: i32, outPtr: usize): void {
  const rowBytes = <usize> dim << 2;
  let row = matPtr;
  for (let i = 0; i < n; i++) {
    let dot: f32 = 0;
    for (let j = 0; j < dim; j++) {
      const off = <usize> j << 2;
      dot += load<f32>(queryPtr + off) * load<f32>(row + off);
    }
    store<f32>(outPtr + (<usize> i << 2), dot);
    row += rowBytes;
  }
}

/** Dot product of one query against `n` rows with f32x4 SIMD; same semantics as `dotBatch`. */
export function dotBatchSimd(
  queryPtr: usize,
  matPtr: usize,
  n: i32,
  dim: i32,
  outPtr: usize,
): void {
  const rowBytes = <usize> dim << 2;
  let row = matPtr;
  for (let i = 0; i < n; i++) {
    store<f32>(outPtr + (<usize> i << 2), dotSimd(queryPtr, row, dim));
    row += rowBytes;
  }
}

function sumLanes(v: v128): f32 {
  return f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1) +
    (f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3));
}

function dotSimd(a: usize, b: usize, dim: i32): f32 {
  const wide = dim & ~3;
  let acc = f32x4.splat(0);
  for (let j = 0; j < wide; j += 4) {
    const off = <usize> j << 2;
    acc = f32x4.add(acc, f32x4.mul(v128.load(a + off), v128.load(b + off)));
  }
  let dot = sumLanes(acc);
  for (let j = wide; j < dim; j++) {
    const off = <usize> j << 2;
    dot += load<f32>(a + off) * load<f32>(b + off);
  }
  return dot;
}

function cosineOf(dot: f32, qq: f32, rr: f32): f32 {
  // Norms multiplied in f64: two f32 squared norms can overflow f32 before the sqrt.
  const denom = Math.sqrt(<f64> qq * <f64> rr);
  return denom > 0 ? <f32> (<f64> dot / denom) : 0;
}

// ---------------------------------------------------------------------------------------
// Character-bigram Jaccard. Text arrives as UTF-16 code units (already lower-cased by the
// loader). Cleaning here: surrogate pairs become one code point, whitespace runs collapse to
// one space, leading and trailing whitespace is dropped. A bigram key is (a << 21) | b over
// code points; a one-character text has the single key (a << 21) | LONE. Two empty texts
// score 1, one empty text scores 0.

const LONE: u64 = 0x1fffff;

/** Writes the sorted unique bigram keys (u64) of `len` UTF-16 units at `outPtr`; returns the count. */
export function bigramKeys(textPtr: usize, len: i32, outPtr: usize): i32 {
  const count = extractKeys(textPtr, len, outPtr);
  if (count < 2) return count;
  sortKeys(outPtr, count);
  return uniqueKeys(outPtr, count);
}

// Writes the bigram keys of a text in text order, duplicates included; returns the count.
function extractKeys(textPtr: usize, len: i32, outPtr: usize): i32 {
  let count = 0;
  let prev: i64 = -1; // previous kept code point, -1 at the start
  let pendingSpace = false;
  let i = 0;
  while (i < len) {
    let cp = <u32> load<u16>(textPtr + (<usize> i << 1));
    i++;
    if (cp >= 0xd800 && cp < 0xdc00 && i < len) {
      const lo = <u32> load<u16>(textPtr + (<usize> i << 1));
      if (lo >= 0xdc00 && lo < 0xe000) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      }
    }
    if (isSpace(cp)) {
      pendingSpace = prev >= 0;
      continue;
    }
    if (pendingSpace) {
      store<u64>(outPtr + (<usize> count << 3), (<u64> prev << 21) | 0x20);
      count++;
      prev = 0x20;
      pendingSpace = false;
    }
    if (prev >= 0) {
      store<u64>(outPtr + (<usize> count << 3), (<u64> prev << 21) | <u64> cp);
      count++;
    }
    prev = cp;
  }
  if (count == 0 && prev >= 0) {
    store<u64>(outPtr, (<u64> prev << 21) | LONE);
    return 1;
  }
  return count;
}

/** Jaccard of two sorted unique u64 key arrays; two empty arrays score 1. */
export function jaccardSorted(aPtr: usize, aLen: i32, bPtr: usize, bLen: i32): f64 {
  if (aLen == 0 && bLen == 0) return 1;
  let i = 0;
  let j = 0;
  let inter = 0;
  while (i < aLen && j < bLen) {
    const a = load<u64>(aPtr + (<usize> i << 3));
    const b = load<u64>(bPtr + (<usize> j << 3));
    if (a == b) {
      inter++;
      i++;
      j++;
    } else if (a < b) {
      i++;
    } else {
      j++;
    }
  }
  return <f64> inter / <f64> (aLen + bLen - inter);
}

/**
 * Bigram Jaccard of one query (sorted unique keys) against `n` texts stored back to back as
 * UTF-16 units; text k spans units [offsets[k], offsets[k+1]) and `longest` bounds their
 * lengths. Writes n f32 scores at `outPtr`. Allocates its own scratch (may grow memory).
 * Sorting each candidate mispredicts branches; open-addressing tables do not, so this path
 * hashes: a table of the query keys, and a per-candidate table cleared by a generation stamp.
 */
export function bigramJaccardBatch(
  queryKeysPtr: usize,
  queryLen: i32,
  textPtr: usize,
  offsetsPtr: usize,
  n: i32,
  longest: i32,
  outPtr: usize,
): void {
  const qBits = tableBits(queryLen);
  const qMask = (<u32> 1 << qBits) - 1;
  const qTable = alloc(<usize> 8 << qBits);
  memory.fill(qTable, 0xff, <usize> 8 << qBits);
  for (let i = 0; i < queryLen; i++) {
    const key = load<u64>(queryKeysPtr + (<usize> i << 3));
    let slot = hashSlot(key, qBits);
    while (load<u64>(qTable + (<usize> slot << 3)) != EMPTY) slot = (slot + 1) & qMask;
    store<u64>(qTable + (<usize> slot << 3), key);
  }
  const cBits = tableBits(longest);
  const cMask = (<u32> 1 << cBits) - 1;
  const cKeys = alloc(<usize> 8 << cBits);
  const cStamps = alloc(<usize> 4 << cBits);
  memory.fill(cStamps, 0, <usize> 4 << cBits);
  const keys = alloc(<usize> 8 * <usize> max(longest, 1));
  for (let k = 0; k < n; k++) {
    const start = load<u32>(offsetsPtr + (<usize> k << 2));
    const end = load<u32>(offsetsPtr + (<usize> (k + 1) << 2));
    const count = extractKeys(textPtr + (<usize> start << 1), <i32> (end - start), keys);
    const stamp = <u32> k + 1;
    let unique = 0;
    let inter = 0;
    for (let i = 0; i < count; i++) {
      const key = load<u64>(keys + (<usize> i << 3));
      let slot = hashSlot(key, cBits);
      let seen = false;
      while (load<u32>(cStamps + (<usize> slot << 2)) == stamp) {
        if (load<u64>(cKeys + (<usize> slot << 3)) == key) {
          seen = true;
          break;
        }
        slot = (slot + 1) & cMask;
      }
      if (seen) continue;
      store<u32>(cStamps + (<usize> slot << 2), stamp);
      store<u64>(cKeys + (<usize> slot << 3), key);
      unique++;
      let q = hashSlot(key, qBits);
      while (true) {
        const v = load<u64>(qTable + (<usize> q << 3));
        if (v == key) {
          inter++;
          break;
        }
        if (v == EMPTY) break;
        q = (q + 1) & qMask;
      }
    }
    const union = queryLen + unique - inter;
    const score: f64 = union == 0 ? 1 : <f64> inter / <f64> union;
    store<f32>(outPtr + (<usize> k << 2), <f32> score);
  }
}

// No key reaches all ones: keys are below 2^42.
const EMPTY: u64 = 0xffffffffffffffff;

// log2 of a table size that keeps the load factor at or under 1/2 for `count` keys.
function tableBits(count: i32): u32 {
  let bits: u32 = 1;
  while ((<i64> 1 << bits) < (<i64> count << 1)) bits++;
  return bits;
}

function hashSlot(key: u64, bits: u32): u32 {
  return <u32> ((key * 0x9e3779b97f4a7c15) >> (64 - <u64> bits));
}

// The same set as JavaScript's `\s` (ECMAScript WhiteSpace + LineTerminator).
function isSpace(c: u32): bool {
  if (c < 0x80) return c == 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x1680) return c == 0xa0;
  return c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
    c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

function sortKeys(ptr: usize, n: i32): void {
  if (n <= 32) {
    insertionSort(ptr, 0, n);
    return;
  }
  heapSort(ptr, n);
}

function insertionSort(ptr: usize, from: i32, to: i32): void {
  for (let i = from + 1; i < to; i++) {
    const v = load<u64>(ptr + (<usize> i << 3));
    let j = i - 1;
    while (j >= from) {
      const w = load<u64>(ptr + (<usize> j << 3));
      if (w <= v) break;
      store<u64>(ptr + (<usize> (j + 1) << 3), w);
      j--;
    }
    store<u64>(ptr + (<usize> (j + 1) << 3), v);
  }
}

function heapSort(ptr: usize, n: i32): void {
  for (let i = (n >> 1) - 1; i >= 0; i--) siftDown(ptr, i, n);
  for (let end = n - 1; end > 0; end--) {
    const top = load<u64>(ptr);
    store<u64>(ptr, load<u64>(ptr + (<usize> end << 3)));
    store<u64>(ptr + (<usize> end << 3), top);
    siftDown(ptr, 0, end);
  }
}

function siftDown(ptr: usize, root: i32, n: i32): void {
  const v = load<u64>(ptr + (<usize> root << 3));
  let i = root;
  while (true) {
    let child = 2 * i + 1;
    if (child >= n) break;
    let c = load<u64>(ptr + (<usize> child << 3));
    if (child + 1 < n) {
      const r = load<u64>(ptr + (<usize> (child + 1) << 3));
      if (r > c) {
        child++;
        c = r;
      }
    }
    if (c <= v) break;
    store<u64>(ptr + (<usize> i << 3), c);
    i = child;
  }
  store<u64>(ptr + (<usize> i << 3), v);
}

function uniqueKeys(ptr: usize, n: i32): i32 {
  let w = 1;
  let last = load<u64>(ptr);
  for (let i = 1; i < n; i++) {
    const v = load<u64>(ptr + (<usize> i << 3));
    if (v != last) {
      store<u64>(ptr + (<usize> w << 3), v);
      w++;
      last = v;
    }
  }
  return w;
}

// ---------------------------------------------------------------------------------------
// Memory read: the physical limit a scan runs against.

/** Sums `bytes` bytes at `ptr` as i32 lanes (wrapping), reading each byte once; tail bytes count as u8. */
export function sumBytes(ptr: usize, bytes: usize): i32 {
  let a = i32x4.splat(0);
  let b = i32x4.splat(0);
  let c = i32x4.splat(0);
  let d = i32x4.splat(0);
  const wide = bytes & ~(<usize> 63);
  for (let off: usize = 0; off < wide; off += 64) {
    const p = ptr + off;
    a = i32x4.add(a, v128.load(p));
    b = i32x4.add(b, v128.load(p, 16));
    c = i32x4.add(c, v128.load(p, 32));
    d = i32x4.add(d, v128.load(p, 48));
  }
  const s = i32x4.add(i32x4.add(a, b), i32x4.add(c, d));
  let sum = i32x4.extract_lane(s, 0) + i32x4.extract_lane(s, 1) + i32x4.extract_lane(s, 2) +
    i32x4.extract_lane(s, 3);
  for (let off = wide; off < bytes; off++) sum += <i32> load<u8>(ptr + off);
  return sum;
}

// ---------------------------------------------------------------------------------------
// int8 scalar-quantized vectors. A row is `stride` bytes (a multiple of 16, zero padded) of
// i8 components; its f32 scale is at scalesPtr + 4 * row. The query arrives already
// quantized and widened to i16 (stride units, zero padded), so each 16 stored bytes cost two
// sign extensions and two i32x4.dot_i16x8_s. Score of a row = f32(i32 dot) * f32 scale; the
// TypeScript twin computes the same integers and the same two f32 roundings.

function dotI8(q: usize, row: usize, stride: usize): i32 {
  let a = i32x4.splat(0);
  let b = i32x4.splat(0);
  let off: usize = 0;
  for (; off + 32 <= stride; off += 32) {
    const r0 = v128.load(row + off);
    const r1 = v128.load(row + off, 16);
    const qo = q + (off << 1);
    a = i32x4.add(a, i32x4.dot_i16x8_s(i16x8.extend_low_i8x16_s(r0), v128.load(qo)));
    b = i32x4.add(b, i32x4.dot_i16x8_s(i16x8.extend_high_i8x16_s(r0), v128.load(qo, 16)));
    a = i32x4.add(a, i32x4.dot_i16x8_s(i16x8.extend_low_i8x16_s(r1), v128.load(qo, 32)));
    b = i32x4.add(b, i32x4.dot_i16x8_s(i16x8.extend_high_i8x16_s(r1), v128.load(qo, 48)));
  }
  if (off < stride) {
    const r0 = v128.load(row + off);
    const qo = q + (off << 1);
    a = i32x4.add(a, i32x4.dot_i16x8_s(i16x8.extend_low_i8x16_s(r0), v128.load(qo)));
    b = i32x4.add(b, i32x4.dot_i16x8_s(i16x8.extend_high_i8x16_s(r0), v128.load(qo, 16)));
  }
  const s = i32x4.add(a, b);
  return i32x4.extract_lane(s, 0) + i32x4.extract_lane(s, 1) + i32x4.extract_lane(s, 2) +
    i32x4.extract_lane(s, 3);
}

/** Scores `n` int8 rows against an i16-widened query; writes n f32 = f32(dot) * scale. */
export function i8Scores(
  queryPtr: usize,
  rowsPtr: usize,
  scalesPtr: usize,
  n: i32,
  stride: i32,
  outPtr: usize,
): void {
  let row = rowsPtr;
  for (let i = 0; i < n; i++) {
    const off = <usize> i << 2;
    const dot = dotI8(queryPtr, row, <usize> stride);
    store<f32>(outPtr + off, <f32> dot * load<f32>(scalesPtr + off));
    row += <usize> stride;
  }
}

/**
 * The best `k` of `n` int8 rows (scores as in `i8Scores`), kept in a min-heap of f32 scores
 * at `heapScores` and i32 rows at `heapRows` (k entries each, unordered); returns min(k, n).
 * Ties rank the lower row first, so a later row never displaces an equal score.
 */
export function i8TopK(
  queryPtr: usize,
  rowsPtr: usize,
  scalesPtr: usize,
  n: i32,
  stride: i32,
  k: i32,
  heapScores: usize,
  heapRows: usize,
): i32 {
  const size = min(k, n);
  if (size <= 0) return 0;
  let row = rowsPtr;
  let filled = 0;
  let worst: f32 = 0;
  for (let i = 0; i < n; i++) {
    const dot = dotI8(queryPtr, row, <usize> stride);
    row += <usize> stride;
    const score = <f32> dot * load<f32>(scalesPtr + (<usize> i << 2));
    if (filled < size) {
      heapPush(heapScores, heapRows, filled, score, i);
      filled++;
      worst = load<f32>(heapScores);
    } else if (score > worst) {
      heapReplaceRoot(heapScores, heapRows, size, score, i);
      worst = load<f32>(heapScores);
    }
  }
  return size;
}

// Whether entry (sa, ra) ranks below (sb, rb): lower score, or equal score and higher row.

function worse(sa: f32, ra: i32, sb: f32, rb: i32): bool {
  return sa < sb || (sa == sb && ra > rb);
}

function heapPush(hs: usize, hr: usize, at: i32, score: f32, row: i32): void {
  let i = at;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const ps = load<f32>(hs + (<usize> parent << 2));
    const pr = load<i32>(hr + (<usize> parent << 2));
    if (!worse(score, row, ps, pr)) break;
    store<f32>(hs + (<usize> i << 2), ps);
    store<i32>(hr + (<usize> i << 2), pr);
    i = parent;
  }
  store<f32>(hs + (<usize> i << 2), score);
  store<i32>(hr + (<usize> i << 2), row);
}

function heapReplaceRoot(hs: usize, hr: usize, size: i32, score: f32, row: i32): void {
  let i = 0;
  while (true) {
    const l = 2 * i + 1;
    if (l >= size) break;
    let c = l;
    let cs = load<f32>(hs + (<usize> l << 2));
    let cr = load<i32>(hr + (<usize> l << 2));
    if (l + 1 < size) {
      const rs = load<f32>(hs + (<usize> (l + 1) << 2));
      const rr = load<i32>(hr + (<usize> (l + 1) << 2));
      if (worse(rs, rr, cs, cr)) {
        c = l + 1;
        cs = rs;
        cr = rr;
      }
    }
    if (!worse(cs, cr, score, row)) break;
    store<f32>(hs + (<usize> i << 2), cs);
    store<i32>(hr + (<usize> i << 2), cr);
    i = c;
  }
  store<f32>(hs + (<usize> i << 2), score);
  store<i32>(hr + (<usize> i << 2), row);
}
