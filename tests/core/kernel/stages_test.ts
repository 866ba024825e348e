import assert from "node:assert/strict";
import {
  EventBus,
  type EventOf,
  type Input,
  type StageContext,
  StageHost,
} from "../../../core/mod.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

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

/** A StageHost whose one `pre_action` handler hangs while `hang` is set, and counts its calls. */
function breakerHost(options: { handlerTimeoutMs?: number } = {}) {
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const events = new EventBus({ logger });
  const notices: EventOf<"stage_breaker">[] = [];
  events.subscribe("stage_breaker", (e) => void notices.push(e));
  const host = new StageHost({ clock, logger, events, handlerTimeoutMs: 1000, ...options });
  const state = { hang: true, calls: 0 };
  host.register("pre_action", () => {
    state.calls++;
    return state.hang ? new Promise<void>(() => {}) : undefined;
  }, { plugin: "slow" });
  /** Run the stage; a hanging handler costs its timeout on the clock. */
  const run = async () => {
    const done = host.run(context("pre_action"));
    await clock.tick(1000);
    await done;
  };
  return { clock, logger, host, state, notices, run };
}

Deno.test("StageHost bypasses a handler after 3 timeouts in the window, then lets one probe through after the cool-off", async () => {
  const { clock, logger, host, state, notices, run } = breakerHost();
  for (let i = 0; i < 3; i++) await run();
  assert.equal(state.calls, 3);
  assert.deepEqual(notices, [{
    type: "stage_breaker",
    plugin: "slow",
    stage: "pre_action",
    state: "open",
    timeouts: 3,
    retryInMs: 60_000,
  }]);
  assert.equal(logger.find("Stage handler bypassed after repeated timeouts").length, 1);
  await host.run(context("pre_action")); // no clock: nothing waits
  assert.equal(state.calls, 3);
  assert.equal(clock.pending, 0);

  clock.advance(59_000);
  await host.run(context("pre_action"));
  assert.equal(state.calls, 3, "still cooling off");
  clock.advance(1000);
  state.hang = false;
  await host.run(context("pre_action")); // the probe answers
  assert.equal(state.calls, 4);
  assert.deepEqual(notices.at(-1), {
    type: "stage_breaker",
    plugin: "slow",
    stage: "pre_action",
    state: "closed",
  });
  assert.equal(logger.find("Stage handler answered again; no longer bypassed").length, 1);
  await host.run(context("pre_action"));
  assert.equal(state.calls, 5, "runs normally again");
});

Deno.test("StageHost breaker: a failed probe doubles the cool-off, and runs during a probe are bypassed", async () => {
  const { clock, host, state, notices, run } = breakerHost();
  for (let i = 0; i < 3; i++) await run();
  clock.advance(60_000);
  const probe = host.run(context("pre_action"));
  await host.run(context("pre_action")); // a second chat while the probe is out: bypassed
  assert.equal(state.calls, 4);
  await clock.tick(1000);
  await probe;
  assert.deepEqual(notices.map((n) => n.state), ["open", "open"]);
  assert.equal((notices.at(-1) as { retryInMs: number }).retryInMs, 120_000);
  clock.advance(60_000);
  await host.run(context("pre_action"));
  assert.equal(state.calls, 4, "the cool-off is now 120 s");
});

Deno.test("StageHost breaker counts timeouts only within its window, and counts a handler's TimeoutError", async () => {
  const { clock, host, state, notices, run } = breakerHost();
  await run();
  await run();
  clock.advance(5 * 60_000); // those two are forgotten
  await run();
  await run();
  assert.equal(notices.length, 0);
  state.hang = false;
  host.register("pre_action", () => {
    throw new DOMException("Call timed out", "TimeoutError");
  }, { plugin: "rpc" });
  host.register("pre_action", () => {
    throw new Error("boom"); // a failure, not a timeout: never opens
  }, { plugin: "bad" });
  for (let i = 0; i < 3; i++) await host.run(context("pre_action"));
  assert.deepEqual(notices.map((n) => n.plugin), ["rpc"]);
});
