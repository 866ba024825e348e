// @ts-nocheck: AssemblyScript source (load<T>, v128, usize); asc type-checks it, not deno.
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
