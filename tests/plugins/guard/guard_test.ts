import assert from "node:assert/strict";
import {
  type AgentExit,
  type AgentLaunch,
  type AgentProcess,
  exitReason,
  Guard,
  type GuardState,
} from "../../../plugins/guard/guard.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

/** An agent the test drives: it serves, exits or hangs when told. */
class FakeAgent implements AgentProcess {
  readonly pid: number;
  readonly launch: AgentLaunch;
  readonly signals: Deno.Signal[] = [];
  killedAll = 0;
  error: string | undefined;
  #up = Promise.withResolvers<string | undefined>();
  #exited = Promise.withResolvers<AgentExit>();
  readonly up = this.#up.promise;
  readonly exited = this.#exited.promise;

  constructor(pid: number, launch: AgentLaunch) {
    this.pid = pid;
    this.launch = launch;
  }
  serve(url = "http://127.0.0.1:4321/?token=t"): void {
    this.#up.resolve(url);
  }
  exit(code: number, signal: Deno.Signal | null = null): void {
    this.#up.resolve(undefined);
    this.#exited.resolve({ code, signal });
  }
  lastError(): string | undefined {
    return this.error;
  }
  signal(signal: Deno.Signal): void {
    this.signals.push(signal);
  }
  killAll(): void {
    this.killedAll++;
    this.exit(137, "SIGKILL");
  }
}

function harness(options: { stopTimeoutMs?: number } = {}) {
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const agents: FakeAgent[] = [];
  const states: GuardState[] = [];
  const announced: string[] = [];
  let beat: number | undefined;
  const guard = new Guard({
    clock,
    logger,
    pid: 1,
    spawn: (launch) => {
      const agent = new FakeAgent(100 + agents.length, launch);
      agents.push(agent);
      return agent;
    },
    lastBeat: () => Promise.resolve(beat),
    saveState: (state) => {
      states.push(structuredClone(state));
      return Promise.resolve();
    },
    announce: (url) => announced.push(url),
    stopTimeoutMs: options.stopTimeoutMs,
  });
  return {
    clock,
    logger,
    agents,
    states,
    announced,
    guard,
    beatNow: () => beat = clock.now(),
    /** Let every promise the guard awaits settle. */
    settle: async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    },
  };
}

Deno.test("Guard restarts a killed agent after the backoff on the same port, logging why", async () => {
  const h = harness();
  const running = h.guard.run();
  await h.settle();
  assert.deepEqual(h.agents.map((a) => a.launch), [{ boot: "normal", port: undefined }]);
  h.agents[0]!.serve("http://127.0.0.1:4321/?token=t");
  await h.settle();
  assert.deepEqual(h.announced, ["http://127.0.0.1:4321/?token=t"]);
  h.agents[0]!.exit(137, "SIGKILL");
  await h.settle();
  const crashed = h.logger.find("The agent crashed; restarting it");
  assert.deepEqual(crashed.map((l) => l.fields), [{
    reason: "killed by SIGKILL",
    crashes: 1,
    restartInMs: 100,
    boot: "normal",
  }]);
  assert.equal(h.agents[0]!.killedAll, 1, "what the dead agent left in its group is ended");
  h.clock.advance(99);
  await h.settle();
  assert.equal(h.agents.length, 1);
  h.clock.advance(1);
  await h.settle();
  assert.deepEqual(h.agents[1]!.launch, { boot: "normal", port: 4321 });
  h.agents[1]!.serve("http://127.0.0.1:4321/?token=t");
  await h.settle();
  assert.equal(h.announced.length, 1, "the URL is printed once");
  assert.equal(h.states.at(-1)!.restarts, 1);
  assert.equal(h.states.at(-1)!.lastCrash!.reason, "killed by SIGKILL");
  h.guard.stop("SIGTERM");
  await h.settle();
  assert.deepEqual(h.agents[1]!.signals, ["SIGTERM"]);
  h.agents[1]!.exit(0);
  assert.equal(await running, 0);
});

Deno.test("Guard kills an agent that stops beating and restarts it", async () => {
  const h = harness();
  const running = h.guard.run();
  await h.settle();
  h.agents[0]!.serve();
  for (let i = 0; i < 10; i++) { // beating: 50 s pass without a restart
    h.beatNow();
    h.clock.advance(5000);
    await h.settle();
  }
  assert.equal(h.agents.length, 1);
  h.clock.advance(30_000); // silent
  await h.settle();
  assert.equal(h.agents[0]!.killedAll >= 1, true);
  assert.equal(h.logger.find("The agent stopped beating; killing it").length, 1);
  assert.match(
    String(h.logger.find("The agent crashed; restarting it")[0]?.fields.reason),
    /^no heartbeat for 3\d s$/,
  );
  h.clock.advance(100);
  await h.settle();
  assert.equal(h.agents.length, 2);
  h.guard.stop("SIGINT");
  await h.settle();
  assert.deepEqual(h.agents[1]!.signals, ["SIGINT"]);
  h.agents[1]!.exit(0);
  assert.equal(await running, 0);
});

Deno.test("Guard starts fail-back boot at the third quick crash and says why in its state", async () => {
  const h = harness();
  const running = h.guard.run();
  for (const [i, delay] of [[0, 100], [1, 1000], [2, 1000]] as const) {
    await h.settle();
    h.agents[i]!.serve();
    await h.settle();
    h.agents[i]!.error = "Uncaught TypeError: boom";
    h.agents[i]!.exit(1);
    await h.settle();
    h.clock.advance(delay);
  }
  await h.settle();
  assert.deepEqual(h.agents.map((a) => a.launch.boot), ["normal", "normal", "normal", "failback"]);
  assert.equal(
    h.logger.at("error")[0]?.msg,
    "The agent keeps crashing; restarting it in fail-back boot (built-in plugins and memory only)",
  );
  const state = h.states.at(-1)!;
  assert.equal(state.boot, "failback");
  assert.equal(state.restarts, 3);
  assert.deepEqual(state.failback?.crashes, [
    "exited with code 1: Uncaught TypeError: boom",
    "exited with code 1: Uncaught TypeError: boom",
    "exited with code 1: Uncaught TypeError: boom",
  ]);
  h.guard.stop("SIGTERM");
  h.agents[3]!.exit(0);
  assert.equal(await running, 0);
});

Deno.test("Guard ends with the exit code of a first start that fails, restarting nothing", async () => {
  const h = harness();
  const running = h.guard.run();
  await h.settle();
  h.agents[0]!.exit(1);
  assert.equal(await running, 1);
  assert.equal(h.agents.length, 1);
  assert.deepEqual(h.announced, []);
});

Deno.test("Guard stops when the agent was stopped by someone else (exit 0)", async () => {
  const h = harness();
  const running = h.guard.run();
  await h.settle();
  h.agents[0]!.serve();
  await h.settle();
  h.agents[0]!.exit(0);
  assert.equal(await running, 0);
  assert.equal(h.agents.length, 1);
});

Deno.test("Guard kills an agent that does not stop within the timeout; a second signal is passed on", async () => {
  const h = harness({ stopTimeoutMs: 10_000 });
  const running = h.guard.run();
  await h.settle();
  h.agents[0]!.serve();
  await h.settle();
  h.guard.stop("SIGTERM");
  h.guard.stop("SIGINT");
  await h.settle();
  assert.deepEqual(h.agents[0]!.signals, ["SIGTERM", "SIGINT"]);
  h.clock.advance(10_000);
  assert.equal(await running, 137);
  assert.equal(h.logger.find("The agent did not stop in time; killing it").length, 1);
});

Deno.test("Guard stops during a backoff without starting again", async () => {
  const h = harness();
  const running = h.guard.run();
  await h.settle();
  h.agents[0]!.serve();
  await h.settle();
  h.agents[0]!.exit(1);
  await h.settle();
  h.guard.stop("SIGTERM");
  assert.equal(await running, 0);
  assert.equal(h.agents.length, 1);
  assert.equal(h.clock.pending, 0, "no timer left behind");
});

Deno.test("exitReason names the signal or code, the start phase, and the last error", () => {
  assert.equal(exitReason({ code: 137, signal: "SIGKILL" }, undefined, true), "killed by SIGKILL");
  assert.equal(
    exitReason({ code: 1, signal: null }, "Cannot open graph.db", false),
    "exited with code 1 while starting: Cannot open graph.db",
  );
});
