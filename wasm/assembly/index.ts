// @ts-nocheck: AssemblyScript source (load<T>, v128, usize); asc type-checks it, not deno.
// HomeAgent hot loops, AssemblyScript. Raw-pointer kernels over the exported linear memory.
// Build with `deno task build:wasm` (flags: -O3 --runtime stub --noAssert --enable simd).
// The loader (wasm/mod.ts) owns the layout: it reserves regions with `alloc`, writes inputs
// through typed-array views, calls a kernel and reads the outputs back.
//
// Every kernel has a plain TypeScript twin in wasm/twin.ts with the same semantics; a parity
// test (tests/wasm/hot_loops_test.ts) keeps them honest.
//
// This entry holds the allocator and gathers the kernels of the modules beside it (vectors,
// bigrams, scan, quantized, signs); asc compiles them into one binary.

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

// The kernels, in the order the binary has always exported them.
export { cosineBatch, cosineBatchSimd, dotBatch, dotBatchSimd } from "./vectors.ts";
export { bigramJaccardBatch, bigramKeys, jaccardSorted } from "./bigrams.ts";
export { sumBytes } from "./scan.ts";
export { i8Scores, i8TopK, i8TopKOf } from "./quantized.ts";
export { hammingScan, nearestRows, signCodes } from "./signs.ts";
