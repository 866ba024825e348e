import assert from "node:assert/strict";
import { type Input, type StageContext, StageHost } from "../../core/mod.ts";
import { ManualClock } from "../fakes/clock.ts";
import { MemoryLogger } from "../fakes/logger.ts";

const input: Input = {
  id: "t1",
  text: "hi",
  source: "test",
  channel: "test",
  priority: 0,
  interrupt: false,
  receivedAt: 0,
  meta: {},
};

function context(stage: StageContext["stage"]): StageContext {
  return { stage, turnId: "t1", input, systemMessages: [], shared: new Map() };
}

Deno.test("StageHost runs a stage's handlers concurrently on one shared context", async () => {
  const host = new StageHost({ clock: new ManualClock(), logger: new MemoryLogger() });
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  host.register("pre_action", async (c) => {
    order.push("a:start");
    await gate; // b must run while a waits
    c.systemMessages.push("from a");
    order.push("a:end");
  }, { plugin: "a" });
  host.register("pre_action", (c) => {
    order.push("b");
    c.systemMessages.push("from b");
    release();
  }, { plugin: "b" });
  const ctx = context("pre_action");
  await host.run(ctx);
  assert.deepEqual(order, ["a:start", "b", "a:end"]);
  assert.deepEqual(ctx.systemMessages.sort(), ["from a", "from b"]);
});

Deno.test("StageHost isolates a throwing handler and logs its stack while others stand", async () => {
  const logger = new MemoryLogger();
  const host = new StageHost({ clock: new ManualClock(), logger });
  host.register("before_output", () => {
    throw new Error("boom");
  }, { plugin: "bad" });
  host.register("before_output", async () => {
    await Promise.resolve();
    throw new Error("async boom");
  }, { plugin: "bad2" });
  host.register("before_output", (c) => {
    c.output = "rewritten";
  }, { plugin: "good" });
  const ctx = { ...context("before_output"), output: "original" };
  await host.run(ctx);
  assert.equal(ctx.output, "rewritten");
  const failures = logger.find("Stage handler failed");
  assert.equal(failures.length, 2);
  assert.deepEqual(failures.map((f) => f.fields.plugin).sort(), ["bad", "bad2"]);
  assert.match(String(failures[0]!.fields.stack), /boom/);
});

Deno.test("StageHost stops waiting for a handler that overruns its timeout", async () => {
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const host = new StageHost({ clock, logger, handlerTimeoutMs: 1000 });
  host.register("on_input", () => new Promise<void>(() => {}), { plugin: "slow" });
  const done = host.run(context("on_input"));
  await clock.tick(1000);
  await done;
  assert.equal(logger.find("Stage handler timed out").length, 1);
  assert.equal(clock.pending, 0);
});

Deno.test("StageHost scopes own_tools handlers to their plugin's tools", async () => {
  const host = new StageHost({ clock: new ManualClock(), logger: new MemoryLogger() });
  const seen: string[] = [];
  host.register("before_toolcall", () => void seen.push("global"), { plugin: "g" });
  host.register("before_toolcall", () => void seen.push("own"), {
    plugin: "qq",
    scope: "own_tools",
  });
  await host.run(context("before_toolcall"), ["files"]);
  assert.deepEqual(seen, ["global"]);
  await host.run(context("before_toolcall"), ["qq"]);
  assert.deepEqual(seen, ["global", "global", "own"]);
  assert.throws(
    () => host.register("on_input", () => {}, { plugin: "qq", scope: "own_tools" }),
    /own_tools/,
  );
});

Deno.test("StageHost unregisterPlugin removes only that plugin's handlers", () => {
  const host = new StageHost({ clock: new ManualClock(), logger: new MemoryLogger() });
  host.register("on_input", () => {}, { plugin: "a" });
  host.register("after_output", () => {}, { plugin: "a" });
  host.register("on_input", () => {}, { plugin: "b" });
  assert.equal(host.unregisterPlugin("a"), 2);
  assert.equal(host.count("on_input"), 1);
  assert.equal(host.count("after_output"), 0);
});
