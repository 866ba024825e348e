// @ts-nocheck: AssemblyScript source (load<T>, v128, usize); asc type-checks it, not deno.
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
  for (let i = 0; i < n; i++) {
    const dot = dotI8(queryPtr, row, <usize> stride);
    row += <usize> stride;
    const score = <f32> dot * load<f32>(scalesPtr + (<usize> i << 2));
    filled = offer(heapScores, heapRows, filled, size, score, i);
  }
  return size;
}

/**
 * As `i8TopK`, over the `m` rows listed (i32, ascending) at `slotsPtr` only: the second stage
 * after the sign codes' Hamming scan (signs.ts). Returns min(k, m).
 */
export function i8TopKOf(
  queryPtr: usize,
  rowsPtr: usize,
  scalesPtr: usize,
  slotsPtr: usize,
  m: i32,
  stride: i32,
  k: i32,
  heapScores: usize,
  heapRows: usize,
): i32 {
  const size = min(k, m);
  if (size <= 0) return 0;
  let filled = 0;
  let j = 0;
  // Four rows at a time: the listed rows lie apart in the matrix, so each row's loads wait on
  // memory; four independent streams keep more of them in flight (offered in list order).
  if ((stride & 15) == 0) {
    const st = <usize> stride;
    for (; j + 4 <= m; j += 4) {
      const at = slotsPtr + (<usize> j << 2);
      const i0 = load<i32>(at);
      const i1 = load<i32>(at, 4);
      const i2 = load<i32>(at, 8);
      const i3 = load<i32>(at, 12);
      const r0 = rowsPtr + <usize> i0 * st;
      const r1 = rowsPtr + <usize> i1 * st;
      const r2 = rowsPtr + <usize> i2 * st;
      const r3 = rowsPtr + <usize> i3 * st;
      let a0 = i32x4.splat(0);
      let a1 = i32x4.splat(0);
      let a2 = i32x4.splat(0);
      let a3 = i32x4.splat(0);
      for (let off: usize = 0; off < st; off += 16) {
        const qlo = v128.load(queryPtr + (off << 1));
        const qhi = v128.load(queryPtr + (off << 1), 16);
        const v0 = v128.load(r0 + off);
        const v1 = v128.load(r1 + off);
        const v2 = v128.load(r2 + off);
        const v3 = v128.load(r3 + off);
        a0 = i32x4.add(a0, i32x4.dot_i16x8_s(i16x8.extend_low_i8x16_s(v0), qlo));
        a0 = i32x4.add(a0, i32x4.dot_i16x8_s(i16x8.extend_high_i8x16_s(v0), qhi));
        a1 = i32x4.add(a1, i32x4.dot_i16x8_s(i16x8.extend_low_i8x16_s(v1), qlo));
        a1 = i32x4.add(a1, i32x4.dot_i16x8_s(i16x8.extend_high_i8x16_s(v1), qhi));
        a2 = i32x4.add(a2, i32x4.dot_i16x8_s(i16x8.extend_low_i8x16_s(v2), qlo));
        a2 = i32x4.add(a2, i32x4.dot_i16x8_s(i16x8.extend_high_i8x16_s(v2), qhi));
        a3 = i32x4.add(a3, i32x4.dot_i16x8_s(i16x8.extend_low_i8x16_s(v3), qlo));
        a3 = i32x4.add(a3, i32x4.dot_i16x8_s(i16x8.extend_high_i8x16_s(v3), qhi));
      }
      filled = offer(heapScores, heapRows, filled, size, rowScore(a0, scalesPtr, i0), i0);
      filled = offer(heapScores, heapRows, filled, size, rowScore(a1, scalesPtr, i1), i1);
      filled = offer(heapScores, heapRows, filled, size, rowScore(a2, scalesPtr, i2), i2);
      filled = offer(heapScores, heapRows, filled, size, rowScore(a3, scalesPtr, i3), i3);
    }
  }
  for (; j < m; j++) {
    const i = load<i32>(slotsPtr + (<usize> j << 2));
    const dot = dotI8(queryPtr, rowsPtr + <usize> i * <usize> stride, <usize> stride);
    const score = <f32> dot * load<f32>(scalesPtr + (<usize> i << 2));
    filled = offer(heapScores, heapRows, filled, size, score, i);
  }
  return size;
}

// The score of row `i` from its i32x4 partial dot products (integer sums: order does not matter).
// @ts-ignore: decorator

function rowScore(acc: v128, scalesPtr: usize, i: i32): f32 {
  const dot = i32x4.extract_lane(acc, 0) + i32x4.extract_lane(acc, 1) +
    i32x4.extract_lane(acc, 2) + i32x4.extract_lane(acc, 3);
  return <f32> dot * load<f32>(scalesPtr + (<usize> i << 2));
}

// Offers (score, row) to a min-heap holding `filled` of `size` entries; returns the new fill.
// Rows come in ascending order, so a later row never displaces an equal score.

function offer(hs: usize, hr: usize, filled: i32, size: i32, score: f32, row: i32): i32 {
  if (filled < size) {
    heapPush(hs, hr, filled, score, row);
    return filled + 1;
  }
  if (score > load<f32>(hs)) heapReplaceRoot(hs, hr, size, score, row);
  return filled;
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
