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

/** Options of createDaemonClock. */
export interface DaemonClockOptions {
  /** How long after creation timers run on AbortSignal.timeout (default 3000 ms). */
  startMs?: number;
}

/**
 * systemClock for the daemon's start: Deno 2.9's global setTimeout is Node's, whose first use
 * loads part of Deno's `node:` layer (node:timers, async_hooks, errors: ~25-35 ms of CPU at
 * load 6, before the CLI socket listens, docs/benchmarks.md). For `startMs` after creation the
 * clock's timers run on AbortSignal.timeout, Deno's own timer, instead; then on setTimeout,
 * loaded once the start is over (an idle moment, as a rule). AbortSignal.timeout cannot be
 * cancelled, so a timer waits at most until the start's end on it (a longer one is carried on
 * by setTimeout then): a cancelled one keeps the process alive no longer than that end.
 */
export function createDaemonClock(options: DaemonClockOptions = {}): Clock {
  const end = performance.now() + (options.startMs ?? 3000);
  const starting = () => performance.now() < end;
  // The first setTimeout after the start, in the moment it ends rather than in a later turn.
  startTimer(end - performance.now(), () => clearTimeout(setTimeout(() => {}, 0)));
  const setTimer = (ms: number, fn: () => void): TimerHandle => {
    if (!starting()) return systemClock.setTimer(ms, fn);
    const due = performance.now() + Math.max(0, ms);
    let current: TimerHandle | undefined;
    let cancelled = false;
    const step = () => {
      if (cancelled) return;
      const left = due - performance.now();
      if (left <= 0) return fn();
      current = starting()
        ? startTimer(Math.min(left, end - performance.now()), step)
        : systemClock.setTimer(left, step);
    };
    current = startTimer(Math.min(Math.max(0, ms), end - performance.now()), step);
    return {
      cancel: () => {
        cancelled = true;
        current?.cancel();
      },
    };
  };
  return {
    now: systemClock.now,
    monotonic: systemClock.monotonic,
    setTimer,
    defer: (fn) => void setTimer(0, fn),
  };
}

/** One AbortSignal.timeout timer; cancel() drops `fn` (the signal itself runs out its time). */
function startTimer(ms: number, fn: () => void): TimerHandle {
  let run: (() => void) | undefined = fn;
  const signal = AbortSignal.timeout(Math.max(0, Math.ceil(ms)));
  signal.onabort = () => {
    const f = run;
    run = undefined;
    f?.();
  };
  return { cancel: () => void (run = undefined) };
}
