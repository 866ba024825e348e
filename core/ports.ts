/**
 * The ports through which the kernel touches the world. `core/` does no IO of its own: the
 * composition root (main.ts) or a test hands implementations of these in.
 */

/** A cancellable timer handle. */
export interface TimerHandle {
  cancel(): void;
}

/** Time, injected so debounce, heartbeats, cooldowns and timeouts are testable without sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Monotonic milliseconds for measuring durations. */
  monotonic(): number;
  /** Run `fn` once after `ms`. The timer must not keep the process alive past its own cancel(). */
  setTimer(ms: number, fn: () => void): TimerHandle;
  /**
   * Run `fn` on a later turn of the event loop, once pending IO has gone out (the close of a
   * request just cancelled by a preemption). Optional: without it the kernel uses a microtask.
   */
  defer?(fn: () => void): void;
}

/** Resolve after `ms` on `clock`, or reject with the signal's reason when it aborts first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Structured fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/** Structured logger; implementations write JSON lines (main.ts) or collect them (tests). */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

/** A logger that drops everything; for tests that do not look at logs. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};

/** One row of a config table as the store keeps it: the value is JSON text. */
export interface ConfigRow {
  key: string;
  value: string;
  updatedAt: number;
}

/**
 * Storage of the ConfigRegistry: table `config` for `core.*` keys and one table
 * `config_<plugin>` per plugin namespace. Methods throw on storage failure.
 */
export interface ConfigStore {
  get(table: string, key: string): ConfigRow | undefined;
  set(table: string, key: string, value: string, updatedAt: number): void;
  delete(table: string, key: string): void;
  list(table: string, prefix?: string): ConfigRow[];
  tables(): string[];
}
