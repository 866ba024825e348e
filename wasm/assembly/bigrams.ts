// @ts-nocheck: AssemblyScript source (load<T>, v128, usize); asc type-checks it, not deno.
import { alloc } from "./index.ts";

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
