// @ts-nocheck: AssemblyScript source (load<T>, v128, usize); asc type-checks it, not deno.
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
