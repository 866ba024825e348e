import assert from "node:assert/strict";
import {
  Reembedder,
  type ReembedStatus,
  type ReembedTarget,
} from "../../../memory/embed/reembed.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

/** A tier with `stale` items that re-embeds them `step` at a time, recording the status it sees. */
function target(
  tier: ReembedTarget["tier"],
  stale: number,
  seen: ReembedStatus[],
  get: () => ReembedStatus,
) {
  return {
    tier,
    stale: () => stale,
    async run(o: Parameters<ReembedTarget["run"]>[0]) {
      assert.equal(o.priority, "background");
      for (let done = 2; done <= stale; done += 2) {
        o.signal?.throwIfAborted();
        await Promise.resolve();
        o.onProgress(done);
        seen.push(get());
      }
      return stale;
    },
  } satisfies ReembedTarget;
}

Deno.test("Reembedder moves every tier in turn, with progress in its status and a log line per tenth", async () => {
  const logger = new MemoryLogger();
  const seen: ReembedStatus[] = [];
  const get = () => reembedder.status();
  const reembedder: Reembedder = new Reembedder({
    targets: [
      target("context", 0, seen, get),
      target("documents", 10, seen, get),
      target("graph", 10, seen, get),
    ],
    logger,
    clock: new ManualClock(),
  });
  assert.equal(reembedder.status().state, "idle");
  await reembedder.run();
  assert.deepEqual(seen.map((s) => [s.tier, s.done, s.total]).slice(0, 2), [["documents", 2, 20], [
    "documents",
    4,
    20,
  ]]);
  assert.deepEqual(seen.at(-1)!.tier, "graph");
  assert.deepEqual([reembedder.status().state, reembedder.status().done], ["done", 20]);
  assert.equal(
    logger.find("Re-embedding memories into the current vector space")[0]!.fields.documents,
    10,
  );
  const percents = logger.find("Re-embedding memories").map((l) => l.fields.percent);
  assert.deepEqual(percents, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
  assert.equal(logger.find("Re-embedded memories")[0]!.fields.count, 20);
});

Deno.test("Reembedder reports a failure or a stop in its status, and never rejects", async () => {
  const logger = new MemoryLogger();
  const failing = new Reembedder({
    targets: [{
      tier: "documents",
      stale: () => 3,
      run: () => Promise.reject(new Error("model gone")),
    }],
    logger,
    clock: new ManualClock(),
  });
  await failing.run();
  assert.deepEqual([failing.status().state, failing.status().error], ["failed", "model gone"]);
  assert.equal(
    logger.find("Re-embedding memories failed; the rest is found by its words until the next start")
      .length,
    1,
  );
  const abort = new AbortController();
  abort.abort();
  const stopped = new Reembedder({
    targets: [{ tier: "graph", stale: () => 1, run: (o) => Promise.reject(o.signal!.reason) }],
    logger,
    clock: new ManualClock(),
  });
  await stopped.run(abort.signal);
  assert.equal(stopped.status().state, "stopped");
  const nothing = new Reembedder({ targets: [], logger, clock: new ManualClock() });
  await nothing.run();
  assert.deepEqual([nothing.status().state, nothing.status().total], ["done", 0]);
});
