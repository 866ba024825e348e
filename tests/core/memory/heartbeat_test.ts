import assert from "node:assert/strict";
import { Heartbeat, type HeartbeatTask } from "../../../core/mod.ts";
import { flushMicrotasks, ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

function task(
  name: string,
  intervalMs: () => number,
  run: HeartbeatTask["run"],
): HeartbeatTask {
  return { name, intervalMs, run };
}

Deno.test("Heartbeat runs each task on its own interval and sums its counts", async () => {
  const clock = new ManualClock();
  const runs: string[] = [];
  const heartbeat = new Heartbeat({
    clock,
    logger: new MemoryLogger(),
    tasks: [
      task("fast", () => 10, () => (runs.push("fast"), Promise.resolve({ n: 1 }))),
      task("slow", () => 30, () => (runs.push("slow"), Promise.resolve({ n: 2 }))),
    ],
  });
  heartbeat.start();
  for (let i = 0; i < 6; i++) await clock.tick(10);
  await heartbeat.stop();
  assert.equal(runs.filter((r) => r === "fast").length, 6);
  assert.equal(runs.filter((r) => r === "slow").length, 2);
  const [fast, slow] = heartbeat.stats();
  assert.equal(fast?.totals.n, 6);
  assert.equal(slow?.totals.n, 4);
  assert.equal(slow?.runs, 2);
  assert.equal(clock.pending, 0);
});

Deno.test("Heartbeat never overlaps a task with itself and survives its errors", async () => {
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  let active = 0;
  let most = 0;
  let calls = 0;
  const gate = Promise.withResolvers<void>();
  const heartbeat = new Heartbeat({
    clock,
    logger,
    tasks: [task("slow", () => 10, async () => {
      calls++;
      active++;
      most = Math.max(most, active);
      if (calls === 1) await gate.promise;
      active--;
      if (calls === 2) throw new Error("disk full");
      return { ok: 1 };
    })],
  });
  heartbeat.start();
  await clock.tick(10);
  void heartbeat.runNow("slow"); // joins the run under way
  await clock.tick(50, 5); // no timer is armed while the first run hangs
  assert.equal(calls, 1);
  gate.resolve();
  await flushMicrotasks();
  await clock.tick(10); // second run throws
  await clock.tick(10); // third run still comes
  await heartbeat.stop();
  assert.equal(most, 1);
  assert.equal(calls, 3);
  const [stats] = heartbeat.stats();
  assert.equal(stats?.failures, 1);
  assert.equal(stats?.lastError, "disk full");
  assert.ok(logger.lines.some((l) => l.level === "error" && l.msg === "Heartbeat failed"));
});

Deno.test("Heartbeat with a zero interval is disabled until the setting changes", async () => {
  const clock = new ManualClock();
  let interval = 0;
  let calls = 0;
  const heartbeat = new Heartbeat({
    clock,
    logger: new MemoryLogger(),
    disabledPollMs: 100,
    tasks: [task("t", () => interval, () => (calls++, Promise.resolve({})))],
  });
  heartbeat.start();
  await clock.tick(500, 5);
  assert.equal(calls, 0);
  assert.equal(heartbeat.stats()[0]?.enabled, false);
  interval = 50;
  await clock.tick(100); // the next look at the setting runs it at once
  assert.equal(calls, 1);
  await clock.tick(50);
  assert.equal(calls, 2);
  await heartbeat.stop();
});

Deno.test("Heartbeat.stop aborts a run under way and waits for it", async () => {
  const clock = new ManualClock();
  let aborted = false;
  const heartbeat = new Heartbeat({
    clock,
    logger: new MemoryLogger(),
    tasks: [task("t", () => 10, (signal) =>
      new Promise((_, reject) => {
        signal.addEventListener("abort", () => {
          aborted = true;
          reject(signal.reason);
        });
      }))],
  });
  heartbeat.start();
  await clock.tick(10);
  await heartbeat.stop();
  assert.ok(aborted);
  assert.equal(heartbeat.stats()[0]?.failures, 0);
  assert.equal(clock.pending, 0);
});

Deno.test("Heartbeat.reschedule applies a changed interval at once, not when the old timer fires", async () => {
  const clock = new ManualClock();
  let interval = 60;
  const runs: number[] = [];
  const heartbeat = new Heartbeat({
    clock,
    logger: new MemoryLogger(),
    watchMs: 0,
    tasks: [task("t", () => interval, () => (runs.push(clock.monotonic()), Promise.resolve({})))],
  });
  heartbeat.start();
  await clock.tick(10);
  interval = 30; // shorter: due 30 after the start, not at 60
  heartbeat.reschedule();
  await clock.tick(20);
  assert.deepEqual(runs, [30]);
  await clock.tick(5);
  interval = 5; // already overdue (5 since the last run): it runs at once
  heartbeat.reschedule();
  await clock.tick(0);
  await heartbeat.whenIdle();
  assert.deepEqual(runs, [30, 35]);
  interval = 0; // disabled, then enabled again: one interval from that moment
  heartbeat.reschedule();
  await clock.tick(100);
  assert.deepEqual(runs, [30, 35]);
  interval = 20;
  heartbeat.reschedule();
  await clock.tick(20);
  assert.deepEqual(runs, [30, 35, 155]);
  await heartbeat.stop();
  assert.equal(clock.pending, 0);
});

Deno.test("Heartbeat notices an interval changed elsewhere within watchMs", async () => {
  const clock = new ManualClock();
  let interval = 3_600_000;
  let calls = 0;
  const heartbeat = new Heartbeat({
    clock,
    logger: new MemoryLogger(),
    watchMs: 60_000,
    tasks: [task("t", () => interval, () => (calls++, Promise.resolve({})))],
  });
  heartbeat.start();
  await clock.tick(120_000);
  interval = 150_000; // written by another process: nobody calls reschedule
  await clock.tick(60_000);
  await heartbeat.whenIdle();
  assert.equal(calls, 1, "applied at the next watch, 180 s after the start");
  await clock.tick(150_000);
  assert.equal(calls, 2);
  await heartbeat.stop();
  assert.equal(clock.pending, 0);
});
