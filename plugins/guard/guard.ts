/**
 * The guard (ARCHITECTURE.md "supervisor/"): the small process `serve` runs. It starts the agent
 * process, watches its heartbeat, restarts it when it dies or stops beating (the reason logged,
 * with GuardPolicy's backoff), and after repeated crashes starts it in fail-back boot. A signal
 * to the guard stops the agent in order. The processes and files are ports, so the whole
 * policy runs under a manual clock in the tests. Like everything the guard process runs, it
 * imports only types from core/: the guard stays small by never evaluating the daemon's code.
 */
import type { Clock, Logger } from "../../core/mod.ts";
import { type Boot, type Crash, GuardPolicy } from "./policy.ts";
import { messageOf, sleep } from "./_light.ts";

/** How one agent process ended. */
export interface AgentExit {
  code: number;
  signal: Deno.Signal | null;
}

/** One running agent process. */
export interface AgentProcess {
  readonly pid: number;
  /** Its URL line once it serves; undefined when it exits before. */
  readonly up: Promise<string | undefined>;
  /** Resolves when the process has exited. Never rejects. */
  readonly exited: Promise<AgentExit>;
  /** The last error it logged (for the crash reason), if any. */
  lastError(): string | undefined;
  /** Send `signal` to the agent alone (an orderly stop). */
  signal(signal: Deno.Signal): void;
  /** SIGKILL the agent and every process left in its group (plugins it started). */
  killAll(): void;
}

/** What the guard starts. */
export interface AgentLaunch {
  boot: Boot;
  /** The web port the first agent got, so a restart serves the same address. */
  port?: number;
}

/** What the guard tells the agent and `status` (run/guard.json). */
export interface GuardState {
  pid: number;
  boot: Boot;
  /** Restarts since the guard started. */
  restarts: number;
  /** The last crash, with its wall-clock time (ISO). */
  lastCrash?: { at: string; reason: string };
  /** Why fail-back boot was entered: the crashes within the window, oldest first. */
  failback?: { since: string; windowMs: number; crashes: string[] };
}

/** The guard's ports and settings. */
export interface GuardOptions {
  clock: Clock;
  logger: Logger;
  spawn(launch: AgentLaunch): AgentProcess;
  /** The heartbeat file's last write (ms since the epoch); undefined when there is none. */
  lastBeat(): Promise<number | undefined>;
  /** Persist the state (run/guard.json) before each start. */
  saveState(state: GuardState): Promise<void>;
  /** The first agent serves: print its URL (once for the guard's life). */
  announce(url: string): void;
  policy?: GuardPolicy;
  /** The guard's pid, for the state. */
  pid: number;
  /** No heartbeat for this long means a hung agent, ms. Default 30 s (the agent beats every 5). */
  heartbeatTimeoutMs?: number;
  /** How often the heartbeat is looked at, ms. Default 5 s. */
  checkEveryMs?: number;
  /** How long an orderly stop may take before the agent is killed, ms. Default 25 s. */
  stopTimeoutMs?: number;
}

type Outcome =
  | { kind: "exited"; exit: AgentExit; up: boolean }
  | { kind: "stale"; ageMs: number }
  | { kind: "stop" };

/** Runs the agent until a stop; see the file comment. */
export class Guard {
  #o: GuardOptions;
  #policy: GuardPolicy;
  #stopRequest = Promise.withResolvers<Deno.Signal>();
  #stopSignal: Deno.Signal | undefined;
  #agent: AgentProcess | undefined;
  /** The agent stop() passed a signal to. */
  #signalled: AgentProcess | undefined;
  #announced = false;
  #port: number | undefined;
  #state: GuardState;

  constructor(options: GuardOptions) {
    this.#o = options;
    this.#policy = options.policy ?? new GuardPolicy();
    this.#state = { pid: options.pid, boot: "normal", restarts: 0 };
  }

  /**
   * Ask the agent to stop in order: SIGTERM lets the running turn finish, SIGINT cancels it.
   * A second call passes its signal on as well (the agent then exits at once).
   */
  stop(signal: Deno.Signal): void {
    if (this.#stopSignal === undefined) {
      this.#stopSignal = signal;
      this.#stopRequest.resolve(signal);
    }
    this.#agent?.signal(signal);
    this.#signalled = this.#agent;
  }

  /**
   * Start the agent and keep it running until stop(). Resolves with the exit code of `serve`:
   * the agent's own after a stop, or after a first start that failed (its error is in its log).
   */
  async run(): Promise<number> {
    for (;;) {
      if (this.#stopSignal !== undefined) return 0;
      this.#state.boot = this.#policy.boot;
      await this.#o.saveState({ ...this.#state });
      const startedAt = this.#o.clock.monotonic();
      const agent = this.#agent = this.#o.spawn({ boot: this.#state.boot, port: this.#port });
      const outcome = await this.#watch(agent);
      if (outcome.kind === "stop") return await this.#stopAgent(agent);
      const ended = outcome.kind === "exited" ? outcome : await this.#kill(agent, outcome);
      if (!this.#announced) return ended.exit.code; // the first start failed: serve fails
      if (ended.exit.code === 0 && ended.exit.signal === null) {
        this.#o.logger.info("The agent stopped by itself; the guard stops too");
        return 0;
      }
      agent.killAll(); // what it started and left behind
      this.#policy.ranFor(this.#o.clock.monotonic() - startedAt);
      const reason = outcome.kind === "stale"
        ? `no heartbeat for ${Math.round(outcome.ageMs / 1000)} s`
        : exitReason(ended.exit, agent.lastError(), ended.up);
      if (!await this.#planRestart(reason)) return 0;
    }
  }

  /** Wait for the agent to exit, hang, or be asked to stop; announce it once it serves. */
  async #watch(agent: AgentProcess): Promise<Outcome> {
    let up = false;
    const spawnedAt = this.#o.clock.now();
    void agent.up.then((url) => {
      if (url === undefined) return;
      up = true;
      if (this.#announced) return;
      this.#announced = true;
      this.#port = portOf(url);
      this.#o.announce(url);
    });
    const watching = new AbortController();
    const stale = this.#staleHeartbeat(spawnedAt, watching.signal);
    try {
      return await Promise.race([
        agent.exited.then((exit): Outcome => ({ kind: "exited", exit, up })),
        this.#stopRequest.promise.then((): Outcome => ({ kind: "stop" })),
        stale.then((ageMs): Outcome => ({ kind: "stale", ageMs })),
      ]);
    } finally {
      watching.abort();
      stale.catch(() => {});
    }
  }

  /** Resolves with the heartbeat's age once it passes the timeout; rejects when aborted. */
  async #staleHeartbeat(spawnedAt: number, signal: AbortSignal): Promise<number> {
    const { clock } = this.#o;
    const timeout = this.#o.heartbeatTimeoutMs ?? 30_000;
    for (;;) {
      await sleep(clock, this.#o.checkEveryMs ?? 5000, signal);
      let beat: number | undefined;
      try {
        beat = await this.#o.lastBeat();
      } catch (error) {
        this.#o.logger.warn("Cannot read the agent's heartbeat", { error: messageOf(error) });
      }
      signal.throwIfAborted();
      // A beat left by an earlier agent does not count for this one.
      const ageMs = clock.now() - Math.max(beat ?? 0, spawnedAt);
      if (ageMs > timeout) return ageMs;
    }
  }

  /** A hung agent cannot run its own stop: kill it and everything it started. */
  async #kill(agent: AgentProcess, outcome: { ageMs: number }) {
    this.#o.logger.error("The agent stopped beating; killing it", {
      pid: agent.pid,
      silentMs: Math.round(outcome.ageMs),
    });
    agent.killAll();
    return { exit: await agent.exited, up: true };
  }

  /** Pass the stop on, wait for the agent (killing it past the timeout), end the guard. */
  async #stopAgent(agent: AgentProcess): Promise<number> {
    const signal = this.#stopSignal!;
    this.#o.logger.info("Stopping the agent", { signal, pid: agent.pid });
    if (this.#signalled !== agent) agent.signal(signal); // started after the stop came
    const ms = this.#o.stopTimeoutMs ?? 25_000;
    const late = new AbortController();
    const timedOut = sleep(this.#o.clock, ms, late.signal).then(() => true, () => false);
    const slow = await Promise.race([agent.exited.then(() => false), timedOut]);
    late.abort();
    if (slow) {
      this.#o.logger.error("The agent did not stop in time; killing it", { pid: agent.pid, ms });
    }
    agent.killAll(); // after an orderly exit, only what it left behind
    return (await agent.exited).code;
  }

  /** Log the crash and wait out the backoff; false when a stop came meanwhile. */
  async #planRestart(reason: string): Promise<boolean> {
    const plan = this.#policy.crashed(this.#o.clock.monotonic(), reason);
    const at = new Date(this.#o.clock.now()).toISOString();
    this.#state.restarts++;
    this.#state.lastCrash = { at, reason };
    const fields = { reason, crashes: plan.crashes, restartInMs: plan.delayMs, boot: plan.boot };
    if (plan.enteringFailback) {
      this.#state.failback = {
        since: at,
        windowMs: this.#policy.windowMs,
        crashes: this.#policy.recent.map((c: Crash) => c.reason),
      };
      this.#o.logger.error(
        "The agent keeps crashing; restarting it in fail-back boot (built-in plugins and memory only)",
        fields,
      );
    } else this.#o.logger.warn("The agent crashed; restarting it", fields);
    const cancel = new AbortController();
    const stopped = this.#stopRequest.promise.then(() => false);
    const waited = sleep(this.#o.clock, plan.delayMs, cancel.signal).then(() => true, () => false);
    const restart = await Promise.race([waited, stopped]);
    cancel.abort();
    return restart;
  }
}

/** A crash in words: `killed by SIGKILL`, `exited with code 1: <its last error>`. */
export function exitReason(exit: AgentExit, lastError: string | undefined, up: boolean): string {
  const how = exit.signal !== null ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const when = up ? "" : " while starting";
  return `${how}${when}${lastError ? `: ${lastError}` : ""}`;
}

function portOf(url: string): number | undefined {
  try {
    const port = Number(new URL(url).port);
    return Number.isInteger(port) && port > 0 ? port : undefined;
  } catch {
    return undefined;
  }
}
