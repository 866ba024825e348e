/**
 * The matcher's pre-check (matcher.ts): a 32-bit polynomial hash of a folded name's code points
 * under a base taken from the home's tombstone key, stored beside each tombstone. A scan rolls it
 * over every window of a text in one pass, so only the rare window whose value is a stored one
 * pays for the HMAC that decides (~40 µs each through node:crypto: hashing every window took
 * seconds per megabyte). Like the HMAC it means nothing without the key, which sits beside both.
 */

/** The hash base of a tombstone key: odd, so every power of it stays a unit mod 2^32. */
export function quickBase(key: Uint8Array): number {
  if (key.length < 4) return 0x9e3779b1;
  const base = (key[0]! | (key[1]! << 8) | (key[2]! << 16) | (key[3]! << 24)) | 1;
  // A base of 1 would make every permutation collide: still correct (the HMAC decides), but slow.
  return base === 1 ? 0x9e3779b1 : base;
}

/** The quick hash of `codes[start..end)` (code points) under `base`, unsigned. */
export function quickHash(base: number, codes: ArrayLike<number>, start = 0, end = codes.length) {
  let h = 0;
  for (let i = start; i < end; i++) h = (Math.imul(h, base) + codes[i]!) | 0;
  return h >>> 0;
}

/** Calls `hit(start)` for each window of `length` code points whose hash is one of `values`. */
export function rollWindows(
  base: number,
  codes: ArrayLike<number>,
  length: number,
  values: ReadonlySet<number>,
  hit: (start: number) => void,
): void {
  if (length < 1 || codes.length < length) return;
  let top = 1;
  for (let i = 1; i < length; i++) top = Math.imul(top, base);
  let h = quickHash(base, codes, 0, length) | 0;
  for (let s = 0;; s++) {
    if (values.has(h >>> 0)) hit(s);
    const e = s + length;
    if (e >= codes.length) return;
    h = (Math.imul((h - Math.imul(codes[s]!, top)) | 0, base) + codes[e]!) | 0;
  }
}
