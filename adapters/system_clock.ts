/** The production Clock: wall time, a monotonic timer and runtime timers. */
import type { Clock, TimerHandle } from "../core/mod.ts";

/** A Clock backed by Date.now, performance.now and setTimeout (also for defer). */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimer(ms: number, fn: () => void): TimerHandle {
    const id = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(id) };
  },
  defer(fn: () => void): void {
    setTimeout(fn, 0);
  },
};
