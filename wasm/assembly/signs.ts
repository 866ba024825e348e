// @ts-nocheck: AssemblyScript source (load<T>, v128, usize); asc type-checks it, not deno.
// 1-bit sign codes of int8 rows, and the Hamming first stage of a quantized search. A row's
// code holds one bit per component (set when the int8 component is > 0): each 16 components
// give the 16 bits of a little-endian u16, and the code is padded with zeros to `codeBytes`
// (a multiple of 16). Reading 64 bytes a row instead of 512 (bge-small's 512 dimensions), the
// first stage picks the rows whose codes are nearest the query's; the int8 kernel then scores
// only those (i8TopKOf in quantized.ts).

/** Writes the sign codes of `n` int8 rows (`stride` bytes apart) at `codesPtr`. */
export function signCodes(
  rowsPtr: usize,
  n: i32,
  stride: i32,
  codesPtr: usize,
  codeBytes: i32,
): void {
  const zero = i8x16.splat(0);
  let row = rowsPtr;
  let code = codesPtr;
  for (let i = 0; i < n; i++) {
    let off: usize = 0;
    for (; off < <usize> stride; off += 16) {
      store<u16>(code + (off >> 3), <u16> i8x16.bitmask(i8x16.gt_s(v128.load(row + off), zero)));
    }
    for (let pad = <usize> stride >> 3; pad < <usize> codeBytes; pad += 2) {
      store<u16>(code + pad, 0);
    }
    row += <usize> stride;
    code += <usize> codeBytes;
  }
}

/** Hamming distance of `n` codes to the query's code, written as u16 at `outPtr`. */
export function hammingScan(
  queryPtr: usize,
  codesPtr: usize,
  n: i32,
  codeBytes: i32,
  outPtr: usize,
): void {
  if (codeBytes == 64) {
    hamming64(queryPtr, codesPtr, n, outPtr);
    return;
  }
  let code = codesPtr;
  for (let i = 0; i < n; i++) {
    let acc = i16x8.splat(0);
    for (let off: usize = 0; off < <usize> codeBytes; off += 16) {
      const bits = i8x16.popcnt(v128.xor(v128.load(code + off), v128.load(queryPtr + off)));
      acc = i16x8.add(acc, i16x8.extadd_pairwise_i8x16_u(bits));
    }
    const s = i32x4.extadd_pairwise_i16x8_u(acc);
    const d = i32x4.extract_lane(s, 0) + i32x4.extract_lane(s, 1) + i32x4.extract_lane(s, 2) +
      i32x4.extract_lane(s, 3);
    store<u16>(outPtr + (<usize> i << 1), <u16> d);
    code += <usize> codeBytes;
  }
}

/**
 * The `p` rows of `n` with the smallest distances (u16 at `distPtr`, each ≤ `maxDist`), written
 * as i32 at `outPtr` in ascending row order; of the rows at the cut-off distance, the lowest
 * rows go in. Counts distances in `histPtr` (maxDist + 1 i32). Returns min(p, n).
 */
export function nearestRows(
  distPtr: usize,
  n: i32,
  maxDist: i32,
  histPtr: usize,
  p: i32,
  outPtr: usize,
): i32 {
  const size = min(p, n);
  if (size <= 0) return 0;
  memory.fill(histPtr, 0, (<usize> maxDist + 1) << 2);
  for (let i = 0; i < n; i++) {
    const at = histPtr + (<usize> load<u16>(distPtr + (<usize> i << 1)) << 2);
    store<i32>(at, load<i32>(at) + 1);
  }
  let cut = 0;
  let below = 0;
  for (; cut <= maxDist; cut++) {
    const count = load<i32>(histPtr + (<usize> cut << 2));
    if (below + count >= size) break;
    below += count;
  }
  let ties = size - below;
  let out = 0;
  for (let i = 0; i < n && out < size; i++) {
    const d = <i32> load<u16>(distPtr + (<usize> i << 1));
    if (d < cut || (d == cut && ties-- > 0)) {
      store<i32>(outPtr + (<usize> out << 2), i);
      out++;
    }
  }
  return size;
}

// hammingScan for 64-byte codes (512 dimensions, the sentence models'): the query's code stays
// in four registers, and the four popcounts add up in u8 lanes (at most 32 each) before one
// widening, instead of a load of the query and a widening add per 16 bytes.
function hamming64(queryPtr: usize, codesPtr: usize, n: i32, outPtr: usize): void {
  const q0 = v128.load(queryPtr);
  const q1 = v128.load(queryPtr, 16);
  const q2 = v128.load(queryPtr, 32);
  const q3 = v128.load(queryPtr, 48);
  let code = codesPtr;
  for (let i = 0; i < n; i++) {
    const a = i8x16.add(
      i8x16.popcnt(v128.xor(v128.load(code), q0)),
      i8x16.popcnt(v128.xor(v128.load(code, 16), q1)),
    );
    const b = i8x16.add(
      i8x16.popcnt(v128.xor(v128.load(code, 32), q2)),
      i8x16.popcnt(v128.xor(v128.load(code, 48), q3)),
    );
    const s = i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(i8x16.add(a, b)));
    const h = i32x4.add(
      s,
      i8x16.shuffle(s, s, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7),
    );
    store<u16>(
      outPtr + (<usize> i << 1),
      <u16> (i32x4.extract_lane(h, 0) + i32x4.extract_lane(h, 1)),
    );
    code += 64;
  }
}
