/**
 * Heartbeats (ARCHITECTURE.md "Context Pruning", "Memory Flow" ④ and ⑤): independent periodic
 * tasks on the injected Clock. Each task re-arms only after its run ends, so it never overlaps
 * itself; a failing run is logged and recorded, and the next one still comes. Pure scheduling:
 * what a task does (and any IO) lives with whoever supplies `run`.
 */
import type { Clock, Logger, TimerHandle } from "../ports.ts";
import { errorMessage } from "../errors.ts";

/** What one run did, as named counts ("archived": 3, "triples": 12). */
export type HeartbeatCounts = Record<string, number>;

/** One periodic task. */
export interface HeartbeatTask {
  name: string;
  /** Milliseconds between the end of one run and the next, read at each re-arm; ≤ 0 disables. */
  intervalMs(): number;
  /** Do one round; aborted on stop. Throwing is logged and recorded, never fatal. */
  run(signal: AbortSignal): Promise<HeartbeatCounts>;
}

/** What a task has done so far, for `status` and `memory stats`. */
export interface HeartbeatStats {
  name: string;
  enabled: boolean;
  running: boolean;
  runs: number;
  failures: number;
  lastRunAt?: number;
  lastDurationMs?: number;
  /** Counts of the last successful run. */
  last: HeartbeatCounts;
  /** Counts summed over every run since start (or since the restored stats). */
  totals: HeartbeatCounts;
  lastError?: string;
  lastErrorAt?: number;
}

/** Options of a Heartbeat. */
export interface HeartbeatOptions {
  clock: Clock;
  logger: Logger;
  tasks: readonly HeartbeatTask[];
  /** A disabled task looks at its interval again after this long; default 60 s. */
  disabledPollMs?: number;
  /**
   * Every task's interval is read again this often, so a change made where no `reschedule`
   * call can follow (another process writing the config) applies within it; default 60 s, 0
   * turns it off (then only `reschedule` applies a change before the next re-arm).
   */
  watchMs?: number;
  /** Stats restored from an earlier process (totals and last run survive restarts). */
  restored?: readonly HeartbeatStats[];
  /** Called after every run (success or failure), e.g. to persist the stats. */
  onRun?: (stats: HeartbeatStats) => void | Promise<void>;
}

interface Slot {
  task: HeartbeatTask;
  stats: HeartbeatStats;
  timer?: TimerHandle;
  running?: Promise<HeartbeatStats>;
  /** When the wait for the next run began (monotonic): start, or the end of the last run. */
  since: number;
  /** The interval the timer was armed with (≤ 0: disabled, polling). */
  armedMs: number;
}

/** Runs its tasks on their intervals until stop(). */
export class Heartbeat {
  #o: HeartbeatOptions;
  #slots = new Map<string, Slot>();
  #abort = new AbortController();
  #started = false;
  #stopped = false;
  #watch?: TimerHandle;

  constructor(options: HeartbeatOptions) {
    this.#o = options;
    for (const task of options.tasks) {
      if (this.#slots.has(task.name)) {
        throw new TypeError(`Cannot add heartbeat "${task.name}": the name is taken`);
      }
      const old = options.restored?.find((s) => s.name === task.name);
      const stats: HeartbeatStats = {
        ...freshStats(task.name),
        ...old,
        last: { ...old?.last },
        totals: { ...old?.totals },
        running: false,
        enabled: task.intervalMs() > 0,
      };
      this.#slots.set(task.name, { task, stats, since: 0, armedMs: 0 });
    }
  }

  /** Arm every task: the first run of each comes one interval after start. */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    for (const slot of this.#slots.values()) this.#arm(slot);
    this.#armWatch();
  }

  /**
   * Apply changed intervals now, not when the old timer fires: a waiting task's next run moves
   * to one new interval after its last run ended (at once when that is past); a task that was
   * disabled waits one interval from now. A running task re-arms with the new interval anyway.
   */
  reschedule(): void {
    if (!this.#started || this.#stopped) return;
    const now = this.#o.clock.monotonic();
    for (const slot of this.#slots.values()) {
      const interval = slot.task.intervalMs();
      if (!slot.timer || Math.max(interval, 0) === Math.max(slot.armedMs, 0)) continue;
      slot.timer.cancel();
      slot.timer = undefined;
      this.#arm(slot, slot.armedMs > 0 ? slot.since : now);
    }
  }

  /** Resolves once no task is running (runs started meanwhile included). */
  async whenIdle(): Promise<void> {
    for (;;) {
      const running = [...this.#slots.values()].flatMap((s) => s.running ?? []);
      if (running.length === 0) return;
      await Promise.allSettled(running);
    }
  }

  /** Run `name` now (tests, the CLI); joins a run already under way instead of overlapping it. */
  runNow(name: string): Promise<HeartbeatStats> {
    const slot = this.#slots.get(name);
    if (!slot) return Promise.reject(new RangeError(`Unknown heartbeat "${name}"`));
    if (this.#stopped) return Promise.resolve({ ...slot.stats });
    return slot.running ?? this.#run(slot);
  }

  /** Snapshots of every task's stats, in task order. */
  stats(): HeartbeatStats[] {
    return [...this.#slots.values()].map((s) => ({
      ...s.stats,
      last: { ...s.stats.last },
      totals: { ...s.stats.totals },
    }));
  }

  /** Cancel the timers, abort runs under way and wait for them to end. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#watch?.cancel();
    this.#watch = undefined;
    this.#abort.abort(new DOMException("The heartbeat is stopping", "AbortError"));
    const running: Promise<unknown>[] = [];
    for (const slot of this.#slots.values()) {
      slot.timer?.cancel();
      slot.timer = undefined;
      if (slot.running) running.push(slot.running);
    }
    await Promise.allSettled(running);
  }

  /** Arm the next run of `slot`: one interval after `since` (default: now). */
  #arm(slot: Slot, since = this.#o.clock.monotonic()): void {
    if (this.#stopped) return;
    const interval = slot.task.intervalMs();
    slot.stats.enabled = interval > 0;
    slot.since = since;
    slot.armedMs = interval;
    const wait = interval > 0
      ? Math.max(0, since + interval - this.#o.clock.monotonic())
      : this.#o.disabledPollMs ?? 60_000;
    slot.timer = this.#o.clock.setTimer(wait, () => {
      slot.timer = undefined;
      if (slot.task.intervalMs() <= 0) return this.#arm(slot);
      // A manual run under way counts as this tick; every run re-arms when it ends.
      if (!slot.running) void this.#run(slot);
    });
  }

  #run(slot: Slot): Promise<HeartbeatStats> {
    const { clock, logger } = this.#o;
    const stats = slot.stats;
    const started = clock.monotonic();
    stats.running = true;
    const run = (async () => {
      try {
        const counts = await slot.task.run(this.#abort.signal);
        stats.runs++;
        stats.last = { ...counts };
        for (const [k, v] of Object.entries(counts)) stats.totals[k] = (stats.totals[k] ?? 0) + v;
        logger.info("Heartbeat ran", { heartbeat: stats.name, ...counts });
      } catch (error) {
        if (this.#abort.signal.aborted) {
          logger.debug("Heartbeat run stopped", { heartbeat: stats.name });
        } else {
          stats.failures++;
          stats.lastError = errorMessage(error);
          stats.lastErrorAt = clock.now();
          logger.error("Heartbeat failed", { heartbeat: stats.name, error: stats.lastError });
        }
      }
      stats.lastRunAt = clock.now();
      stats.lastDurationMs = clock.monotonic() - started;
      if (this.#started && !slot.timer) this.#arm(slot);
      stats.running = false;
      slot.running = undefined;
      try {
        await this.#o.onRun?.({ ...stats });
      } catch (error) {
        logger.warn("Cannot record heartbeat stats", {
          heartbeat: stats.name,
          error: errorMessage(error),
        });
      }
      return { ...stats };
    })();
    slot.running = run;
    return run;
  }

  #armWatch(): void {
    const every = this.#o.watchMs ?? 60_000;
    if (every <= 0 || this.#stopped) return;
    this.#watch = this.#o.clock.setTimer(every, () => {
      this.reschedule();
      this.#armWatch();
    });
  }
}

function freshStats(name: string): HeartbeatStats {
  return {
    name,
    enabled: true,
    running: false,
    runs: 0,
    failures: 0,
    last: {},
    totals: {},
  };
}
