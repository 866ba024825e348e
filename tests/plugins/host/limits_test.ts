/**
 * The limits on a plugin's channels (docs/security.md "Plugin channel limits"), each against a real
 * hostile subprocess plugin (tests/fixtures/plugins/hostile, flaky): a full or stalled outgoing
 * queue is disconnected, no frame without an id is answered, stderr and stdout floods become
 * counted summary lines, bursts past a bound are refused, a hanging stage is bypassed by its
 * breaker, and a failed start is one crash on the documented restart schedule.
 */
import assert from "node:assert/strict";
import type { KernelEvent } from "../../../core/mod.ts";
import { ErrorCode } from "../../../plugins/sdk/protocol.ts";
import { flushMicrotasks, ManualClock } from "../../fakes/clock.ts";
import { createHarness, type PluginHarness, stageContext, waitFor } from "./_support.ts";

async function stats(h: PluginHarness): Promise<{ echoes: number; stageRuns: number }> {
  return JSON.parse((await h.call("hostile_stats")).content);
}

function crashes(h: PluginHarness): Extract<KernelEvent, { type: "plugin_crashed" }>[] {
  return h.kernel.events.filter((e) => e.type === "plugin_crashed");
}

function publishLoad(h: PluginHarness, count: number, bytes: number): void {
  const data = "x".repeat(bytes);
  for (let i = 0; i < count; i++) {
    h.kernel.agent.events.publish({ type: "custom", name: "load", source: "test", data });
  }
}

function linesMatching(h: PluginHarness, pattern: RegExp) {
  return h.kernel.logger.lines.filter((l) => pattern.test(l.msg));
}

Deno.test("Limits: a plugin that stops reading is disconnected when its queue is full, then restarted", async () => {
  await using h = await createHarness(["hostile"], {
    backoffMs: [0],
    limits: { maxQueueBytes: 1 << 20 },
  });
  const pid = h.registry.info("hostile").pid;
  assert.equal((await h.call("hostile_mute")).content, "muted");
  publishLoad(h, 400, 8192); // 3.2 MB of events it subscribed to and will never read
  await waitFor(() => crashes(h).length > 0);
  assert.match(crashes(h)[0]!.reason, /^disconnected: it stopped reading its input \(/);
  assert.equal(h.kernel.logger.find("Plugin disconnected").length, 1);
  await waitFor(() => {
    const info = h.registry.info("hostile");
    return info.state === "running" && info.pid !== pid;
  });
  assert.equal((await stats(h)).echoes, 0);
});

Deno.test("Limits: a plugin that takes nothing from its queue for the stall deadline is disconnected", async () => {
  const clock = new ManualClock();
  await using h = await createHarness(["hostile"], { clock });
  await h.call("hostile_mute");
  publishLoad(h, 500, 4096); // 2 MB: more than a pipe holds, far under the queue bound
  await flushMicrotasks();
  clock.advance(29_999);
  await flushMicrotasks();
  assert.equal(h.registry.info("hostile").state, "running");
  assert.equal(crashes(h).length, 0);
  clock.advance(1);
  await waitFor(() => crashes(h).length > 0);
  assert.match(crashes(h)[0]!.reason, /^disconnected: it took nothing from its input for 30 s/);
  assert.equal(h.registry.info("hostile").state, "restarting");
});

Deno.test("Limits: a plugin that keeps reading under sustained load is not disconnected", async () => {
  const clock = new ManualClock();
  await using h = await createHarness(["hostile"], { clock });
  for (let round = 0; round < 5; round++) {
    publishLoad(h, 500, 4096); // its pipe is full for part of every round
    clock.advance(20_000);
    assert.equal((await stats(h)).echoes, 0); // answered after reading all of the round
  }
  assert.equal(crashes(h).length, 0);
  assert.equal(h.registry.info("hostile").state, "running");
});

Deno.test("Limits: no frame without an id is answered, so a plugin answering error frames gets no echo", async () => {
  await using h = await createHarness(["hostile"], { limits: { maxFrameBytes: 4096 } });
  assert.equal((await h.call("hostile_provoke")).content, "provoked");
  assert.equal((await h.call("hostile_flood", { long: 10_000 })).content, "flooded");
  for (let i = 0; i < 20; i++) await stats(h); // round trips in which an echo would go on
  assert.equal((await stats(h)).echoes, 0, "the kernel sent no id:null frame to answer");
  assert.equal(h.kernel.logger.find("Malformed frame; not JSON").length, 1);
  assert.equal(h.kernel.logger.find("Frame too large; refused").length, 3);
  assert.equal(h.registry.info("hostile").state, "running");
});

Deno.test("Limits: garbage on stdout is logged up to a limit per interval, then counted in one line", async () => {
  const clock = new ManualClock();
  await using h = await createHarness(["hostile"], { clock });
  assert.equal((await h.call("hostile_flood", { stdout: 500 })).content, "flooded");
  assert.equal(h.kernel.logger.find("Malformed frame; not JSON").length, 20);
  assert.equal(linesMatching(h, /suppressed/).length, 0, "the count comes at the interval's end");
  clock.advance(10_000);
  const summary = linesMatching(h, /more protocol errors suppressed/);
  assert.equal(summary.length, 1);
  assert.equal(
    summary[0]!.msg,
    'Plugin "hostile": 480 more protocol errors suppressed in the last 10 s',
  );
  assert.equal(summary[0]!.fields.suppressed, 480);
  assert.equal(h.registry.info("hostile").state, "running");
});

Deno.test("Limits: a flood of garbage frames disconnects the plugin with one line", async () => {
  const clock = new ManualClock();
  await using h = await createHarness(["hostile"], { clock });
  const result = await h.call("hostile_flood", { stdout: 20_000 });
  assert.equal(result.isError, true, result.content);
  await waitFor(() => crashes(h).length > 0);
  assert.equal(
    crashes(h)[0]!.reason,
    "disconnected: it sent 1,001 malformed or unexpected frames in 10 s",
  );
  assert.equal(h.kernel.logger.find("Plugin disconnected").length, 1);
  assert.equal(h.kernel.logger.find("Malformed frame; not JSON").length, 20);
});

Deno.test("Limits: a stderr flood becomes 100 lines and one count per interval, and no line goes uncounted", async () => {
  const clock = new ManualClock();
  await using h = await createHarness(["hostile"], { clock });
  assert.equal((await h.call("hostile_flood", { stderr: 50_000 })).content, "flooded");
  await h.registry.disable("hostile"); // the child exits; what it wrote is drained and counted
  const relogged = h.kernel.logger.lines.filter((l) =>
    l.fields.plugin === "hostile" && l.fields.stream === "stderr"
  );
  assert.equal(relogged.length, 100);
  const summary = linesMatching(h, /more stderr lines suppressed/);
  assert.equal(summary.length, 1);
  assert.match(
    summary[0]!.msg,
    /^Plugin "hostile": 49,900 more stderr lines suppressed in the last/,
  );
  assert.equal(summary[0]!.fields.suppressed, 49_900);
});

Deno.test("Limits: plugin → kernel requests past the in-flight bound are refused at once", async () => {
  const waiting: (() => void)[] = [];
  let open = false;
  await using h = await createHarness(["hostile"], {
    limits: { maxInflight: 16 },
    services: {
      docQuery: () =>
        new Promise((resolve) => open ? resolve([]) : waiting.push(() => resolve([]))),
    },
  });
  const burst = h.call("hostile_burst", { n: 100 });
  await waitFor(() => waiting.length >= 16);
  open = true;
  for (const release of waiting) release();
  const counts = JSON.parse((await burst).content);
  assert.deepEqual(counts, { ok: 16, [ErrorCode.busy]: 84 });
});

Deno.test("Limits: kernel → plugin calls past the pending bound are refused at once", async () => {
  const clock = new ManualClock();
  await using h = await createHarness(["hostile"], { clock, limits: { maxPending: 8 } });
  const hang = h.kernel.agent.tools.get("hostile_hang")!;
  const context = { signal: new AbortController().signal, turnId: "t", callId: "c" };
  const settled: string[] = [];
  const calls = Array.from({ length: 10 }, () =>
    Promise.resolve(hang.handler({}, context)).then(
      () => void settled.push("answered"),
      (error: Error) => void settled.push(error.message),
    ));
  await flushMicrotasks();
  assert.deepEqual(settled, [
    'Plugin "hostile" has 8 calls in flight; "tool.call" refused',
    'Plugin "hostile" has 8 calls in flight; "tool.call" refused',
  ]);
  clock.advance(5000); // the eight time out
  await Promise.all(calls);
  assert.equal(settled.filter((s) => /timed out after 5000 ms/.test(s)).length, 8);
});

Deno.test("Limits: a stage that times out three times is bypassed, with a notice, until a probe", async () => {
  const clock = new ManualClock();
  await using h = await createHarness(["hostile"], { clock });
  const stages = h.kernel.agent.stages;
  const timedRun = async () => {
    const done = stages.run(stageContext("pre_action", "[hang]"));
    await flushMicrotasks();
    clock.advance(5000); // the plugin's timeout_ms
    await done;
  };
  for (let i = 0; i < 3; i++) await timedRun();
  assert.equal((await stats(h)).stageRuns, 3);
  const notices = h.kernel.events.filter((e) => e.type === "stage_breaker");
  assert.deepEqual(notices, [{
    type: "stage_breaker",
    plugin: "hostile",
    stage: "pre_action",
    state: "open",
    timeouts: 3,
    retryInMs: 60_000,
  }]);
  const opened = h.kernel.logger.find("Stage handler bypassed after repeated timeouts");
  assert.equal(opened.length, 1);
  assert.equal(opened[0]!.fields.plugin, "hostile");
  assert.equal(opened[0]!.fields.stage, "pre_action");

  let settled = false;
  void stages.run(stageContext("pre_action", "[hang]")).then(() => settled = true);
  await flushMicrotasks();
  assert.equal(settled, true, "a chat no longer waits for the bypassed handler");
  assert.equal((await stats(h)).stageRuns, 3);

  clock.advance(60_000);
  await timedRun(); // the half-open probe reaches the plugin and times out again
  assert.equal((await stats(h)).stageRuns, 4);
  const reopened = h.kernel.events.filter((e) => e.type === "stage_breaker").at(-1);
  assert.deepEqual(reopened, {
    type: "stage_breaker",
    plugin: "hostile",
    stage: "pre_action",
    state: "open",
    timeouts: 4,
    retryInMs: 120_000,
  });
});

Deno.test("Limits: a failed restart is one crash: one timer, restarts 1 s, 2 s, 3 s apart, none after giving up", async () => {
  const clock = new ManualClock();
  await using h = await createHarness(["flaky"], { clock });
  const log = `${h.pluginsDir}/flaky/data/starts.log`;
  const starts = async () => (await Deno.readTextFile(log)).split("\n").length - 1;
  assert.equal(await starts(), 1);
  void h.call("flaky_crash");
  await waitFor(() => crashes(h).length === 1);
  const restartedAt: number[] = [];
  for (let crash = 1; crash < 4; crash++) {
    assert.equal(h.registry.info("flaky").state, "restarting");
    const due = clock.dueIn();
    assert.equal(due.length, 1, `one restart timer after crash ${crash}, not ${due.length}`);
    clock.advance(due[0]!);
    restartedAt.push(clock.monotonic());
    await waitFor(() => crashes(h).length > crash);
    assert.equal(crashes(h).length, crash + 1, "the failed start counted once");
    assert.equal(await starts(), crash + 1);
  }
  assert.deepEqual(restartedAt, [1000, 3000, 6000]);
  const info = h.registry.info("flaky");
  assert.equal(info.state, "failed");
  assert.match(info.error!, /^Gave up after 4 crashes in 5 minutes/);
  // What the plugin list shows: each restart, the last crash, and the manifest's face.
  assert.equal(info.restarts, 3);
  assert.deepEqual(info.lastCrash, { at: clock.now(), reason: info.lastCrash!.reason });
  assert.match(info.lastCrash!.reason, /exit|start/);
  assert.match(info.description!, /^Test plugin: starts once, crashes on request/);
  assert.deepEqual(info.permissions, {
    capabilities: ["tools"],
    read: [],
    write: [],
    net: [],
    env: [],
    run: [],
  });
  assert.deepEqual(clock.dueIn(), [], "no restart timer after giving up");
  clock.advance(10 * 60_000);
  await flushMicrotasks();
  assert.equal(await starts(), 4);
  assert.equal(h.kernel.logger.find("Plugin crashed; giving up").length, 1);
});
