/**
 * The pending timers and the one clock timer armed for the earliest of them. A timer that was
 * due while the daemon was down fires once at start, marked late; a repeating one then goes
 * on from now (missed repeats are not replayed).
 */
import type { Clock, Logger, TimerHandle } from "../../../core/mod.ts";
import { nextCron } from "./schedule.ts";
import type { TimerRecord, TimerStore } from "./store.ts";

/** Options of Timers. */
export interface TimersOptions {
  store: TimerStore;
  clock: Clock;
  logger: Logger;
  /** Deliver one firing; `late` when it was due before the daemon started. */
  fire(timer: TimerRecord, late: boolean): void;
}

// Long waits are re-armed in steps, so a timer never depends on one huge runtime delay.
const MAX_WAIT_MS = 3_600_000;

/** Pending timers, persisted on every change. */
export class Timers {
  #options: TimersOptions;
  #timers: TimerRecord[] = [];
  #armed?: TimerHandle;
  /** The save of the last firing (stop waits for it). */
  #firing: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(options: TimersOptions) {
    this.#options = options;
  }

  /**
   * Load the file, fire what was missed (late), and arm. Resolves with where a corrupt file was
   * moved, if it was.
   */
  async start(): Promise<{ movedTo?: string }> {
    const now = this.#options.clock.now();
    const loaded = await this.#options.store.load(now);
    this.#timers = loaded.timers;
    const missed = this.#timers.filter((t) => t.dueAt <= now);
    if (missed.length > 0) {
      this.#options.logger.info("Timers missed while stopped fire now", { count: missed.length });
      await this.#fireDue(now, true);
    }
    this.#arm();
    return loaded.movedTo ? { movedTo: loaded.movedTo } : {};
  }

  /** Add a timer and save. */
  async add(timer: TimerRecord): Promise<void> {
    this.#timers.push(timer);
    await this.#options.store.save(this.#timers);
    this.#arm();
  }

  /** Remove timer `id`; false when there is none. */
  async cancel(id: string): Promise<boolean> {
    const before = this.#timers.length;
    this.#timers = this.#timers.filter((t) => t.id !== id);
    if (this.#timers.length === before) return false;
    await this.#options.store.save(this.#timers);
    this.#arm();
    return true;
  }

  /** The pending timers, soonest first. */
  list(): TimerRecord[] {
    return [...this.#timers].sort((a, b) => a.dueAt - b.dueAt);
  }

  /** Disarm, and wait for a firing's save still under way; the file keeps the timers. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#armed?.cancel();
    this.#armed = undefined;
    await this.#firing;
    await this.#options.store.settled();
  }

  #arm(): void {
    this.#armed?.cancel();
    this.#armed = undefined;
    if (this.#stopped || this.#timers.length === 0) return;
    const next = Math.min(...this.#timers.map((t) => t.dueAt));
    const wait = Math.min(Math.max(0, next - this.#options.clock.now()), MAX_WAIT_MS);
    this.#armed = this.#options.clock.setTimer(wait, () => {
      this.#armed = undefined;
      this.#firing = this.#fireDue(this.#options.clock.now(), false).catch((error) =>
        this.#options.logger.error("Cannot save timers", { error: String(error) })
      ).finally(() => this.#arm());
    });
  }

  async #fireDue(now: number, late: boolean): Promise<void> {
    const due = this.#timers.filter((t) => t.dueAt <= now);
    if (due.length === 0) return;
    const keep: TimerRecord[] = [];
    for (const timer of this.#timers) {
      if (timer.dueAt > now) {
        keep.push(timer);
        continue;
      }
      this.#options.fire(timer, late);
      const next = this.#next(timer, now);
      if (next !== undefined) keep.push({ ...timer, dueAt: next, fired: timer.fired + 1 });
    }
    this.#timers = keep;
    await this.#options.store.save(this.#timers);
  }

  /** The next due time of a repeating timer after `now`, or undefined when it is done. */
  #next(timer: TimerRecord, now: number): number | undefined {
    if (timer.kind === "every" && timer.everyMs) {
      const behind = Math.floor((now - timer.dueAt) / timer.everyMs) + 1;
      return timer.dueAt + behind * timer.everyMs;
    }
    if (timer.kind === "cron" && timer.cron) {
      try {
        return nextCron(timer.cron, now, timer.timezone);
      } catch (error) {
        this.#options.logger.warn("Cron timer has no next run; removed", {
          id: timer.id,
          error: String(error),
        });
      }
    }
    return undefined;
  }
}
