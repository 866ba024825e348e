/** A manual Clock for tests: time moves only when the test calls advance(). */
import type { Clock, TimerHandle } from "../../core/ports.ts";

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/** A Clock whose time moves only through `advance`, firing due timers in order. */
export class ManualClock implements Clock {
  #now: number;
  #mono = 0;
  #seq = 0;
  #timers = new Set<PendingTimer>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  monotonic(): number {
    return this.#mono;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const timer = { at: this.#mono + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.add(timer);
    return { cancel: () => this.#timers.delete(timer) };
  }

  /** Number of timers not yet fired or cancelled. */
  get pending(): number {
    return this.#timers.size;
  }

  /** How long until each pending timer fires, soonest first (ms). */
  dueIn(): number[] {
    return [...this.#timers].map((t) => t.at - this.#mono).sort((a, b) => a - b);
  }

  /** Move time forward by `ms`, firing every timer that falls due, in due order. */
  advance(ms: number): void {
    const target = this.#mono + ms;
    for (;;) {
      const next = [...this.#timers].filter((t) => t.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.#timers.delete(next);
      this.#now += next.at - this.#mono;
      this.#mono = next.at;
      next.fn();
    }
    this.#now += target - this.#mono;
    this.#mono = target;
  }

  /** Advance by `ms`, letting pending promise callbacks run between timer firings. */
  async tick(ms: number, steps = 1): Promise<void> {
    for (let i = 0; i < steps; i++) {
      await flushMicrotasks();
      this.advance(ms / steps);
      await flushMicrotasks();
    }
  }
}

/** Let queued promise callbacks run (a macrotask turn). */
export function flushMicrotasks(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
