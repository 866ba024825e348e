import assert from "node:assert/strict";
import { EventBus } from "../../core/mod.ts";
import { type MallocTrim, trimWhenIdle } from "../../adapters/mod.ts";
import { ManualClock } from "../fakes/clock.ts";
import { MemoryLogger } from "../fakes/logger.ts";

const MALLOC_TRIM = new URL("../../adapters/malloc_trim.ts", import.meta.url).href;

function setup(open?: () => MallocTrim | { reason: string }) {
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const events = new EventBus({ logger });
  let trims = 0;
  let opens = 0;
  const trimmer = trimWhenIdle({
    events,
    clock,
    logger,
    open: open ?? (() => (opens++, { trim: () => (trims++, true), [Symbol.dispose]() {} })),
  });
  const status = (state: "idle" | "busy") => events.publish({ type: "status", state, pending: 0 });
  return { clock, logger, trimmer, status, counts: () => ({ trims, opens }) };
}

Deno.test("trimWhenIdle trims once the agent has idled 15 s after a turn", () => {
  const { clock, status, counts } = setup();
  status("busy");
  status("idle");
  clock.advance(14_999);
  assert.deepEqual(counts(), { trims: 0, opens: 0 }); // nothing opened before the first trim
  clock.advance(1);
  assert.deepEqual(counts(), { trims: 1, opens: 1 });
  clock.advance(60_000);
  assert.deepEqual(counts(), { trims: 1, opens: 1 }); // once per idle spell
  status("busy");
  status("idle");
  clock.advance(15_000);
  assert.deepEqual(counts(), { trims: 2, opens: 1 });
});

Deno.test("trimWhenIdle puts the trim off while turns follow each other", () => {
  const { clock, status, counts, trimmer } = setup();
  for (let i = 0; i < 5; i++) {
    status("busy");
    status("idle");
    clock.advance(10_000);
  }
  assert.equal(counts().trims, 0);
  status("busy");
  clock.advance(60_000); // a long turn: no trim under it
  assert.equal(counts().trims, 0);
  status("idle");
  trimmer[Symbol.dispose]();
  clock.advance(60_000);
  assert.equal(counts().trims, 0);
  assert.equal(clock.pending, 0);
});

Deno.test("trimWhenIdle without a trim logs why once and stops listening", () => {
  let opens = 0;
  const { clock, status, logger } = setup(() => (opens++, { reason: "no --allow-ffi" }));
  for (let i = 0; i < 3; i++) {
    status("idle");
    clock.advance(15_000);
  }
  assert.equal(opens, 1);
  assert.deepEqual(logger.at("debug").map((l) => [l.msg, l.fields.reason]), [
    ["Native memory is not trimmed", "no --allow-ffi"],
  ]);
  assert.equal(clock.pending, 0);
});

/** Run `code` in a fresh deno with only `flags` (deno eval would grant all); its stdout as JSON. */
async function run(flags: string[], code: string): Promise<Record<string, unknown>> {
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(file, code);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...flags, file],
    stdout: "piped",
    stderr: "piped",
  }).output().finally(() => Deno.remove(file));
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

Deno.test({
  name: "openMallocTrim hands freed heap pages back to the system (glibc)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    // 48 MB in 16 kB buffers (below glibc's mmap threshold: they come from its heaps), the
    // last one kept so the heap's top is not free, the rest collected by V8 and freed.
    const result = await run(
      ["--allow-all", "--v8-flags=--expose-gc"],
      `import { openMallocTrim } from "${MALLOC_TRIM}";
      const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))[1]) / 1024;
      let held = Array.from({ length: 3072 }, () => new Uint8Array(16384).fill(1));
      const keep = new Uint8Array(16384).fill(1);
      held = [];
      globalThis.gc(); globalThis.gc();
      const before = rss();
      const trim = openMallocTrim();
      const trimmed = "reason" in trim ? trim.reason : trim.trim();
      console.log(JSON.stringify({ before, after: rss(), trimmed, keep: keep.length }));`,
    );
    assert.equal(result.trimmed, true);
    const freed = Number(result.before) - Number(result.after);
    assert.ok(freed > 24, `trim gave back ${freed.toFixed(1)} MB of ~48 freed`);
  },
});

Deno.test("openMallocTrim says why there is none without --allow-ffi", async () => {
  const result = await run(
    [],
    `import { openMallocTrim } from "${MALLOC_TRIM}";
    console.log(JSON.stringify(openMallocTrim()));`,
  );
  assert.deepEqual(result, {
    reason: Deno.build.os === "linux" ? "no --allow-ffi" : `no glibc on ${Deno.build.os}`,
  });
});
