import assert from "node:assert/strict";
import { GuardPolicy } from "../../../plugins/guard/policy.ts";

Deno.test("GuardPolicy restarts after 100 ms, then 1 s, and the 3rd crash in 5 minutes means fail-back boot", () => {
  const policy = new GuardPolicy();
  assert.equal(policy.boot, "normal");
  assert.deepEqual(policy.crashed(0, "killed by SIGKILL"), {
    delayMs: 100,
    boot: "normal",
    crashes: 1,
    enteringFailback: false,
  });
  assert.equal(policy.crashed(10_000, "exited with code 1").delayMs, 1000);
  assert.deepEqual(policy.crashed(20_000, "no heartbeat for 30 s"), {
    delayMs: 1000,
    boot: "failback",
    crashes: 3,
    enteringFailback: true,
  });
  assert.equal(policy.boot, "failback");
  assert.deepEqual(policy.recent.map((c) => c.reason), [
    "killed by SIGKILL",
    "exited with code 1",
    "no heartbeat for 30 s",
  ]);
});

Deno.test("GuardPolicy forgets crashes older than its window", () => {
  const policy = new GuardPolicy({ windowMs: 60_000 });
  policy.crashed(0, "a");
  policy.crashed(30_000, "b");
  const third = policy.crashed(61_000, "c");
  assert.equal(third.boot, "normal");
  assert.equal(third.crashes, 2);
  assert.deepEqual(policy.recent.map((c) => c.reason), ["b", "c"]);
});

Deno.test("GuardPolicy stays in fail-back boot, backing off further, until a long quiet run", () => {
  const policy = new GuardPolicy({ failbackAfter: 1, failbackBackoffMs: [1000, 5000, 30_000] });
  assert.equal(policy.crashed(0, "a").enteringFailback, true);
  const delays = [1, 2, 3].map((i) => policy.crashed(i * 1000, "again"));
  assert.deepEqual(delays.map((p) => p.delayMs), [5000, 30_000, 30_000]);
  assert.ok(delays.every((p) => p.boot === "failback" && !p.enteringFailback));
  policy.ranFor(10 * 60_000);
  assert.equal(policy.crashed(700_000, "rare").delayMs, 1000);
  assert.equal(policy.boot, "failback");
});
