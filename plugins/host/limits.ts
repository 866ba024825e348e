/**
 * The bounds on one subprocess plugin's channels (docs/security.md "Plugin channel limits"), and the
 * log budget that turns a flood of lines into one counted line per interval.
 */
import type { Clock, TimerHandle } from "../../core/mod.ts";
import { MAX_FRAME_BYTES, MAX_IN_FLIGHT } from "../sdk/protocol.ts";

/** Every bound on a plugin's stdin, stdout and stderr. */
export interface ChannelLimits {
  /** Longest line read from the plugin (one frame), bytes; a longer line is skipped. */
  maxFrameBytes: number;
  /** Bytes written to the plugin and not yet taken by it; past this it is disconnected. */
  maxQueueBytes: number;
  /** Frames written to the plugin and not yet taken by it; past this it is disconnected. */
  maxQueueFrames: number;
  /** A plugin that takes nothing from a waiting queue for this long is disconnected, ms. */
  stallMs: number;
  /** Kernel → plugin requests awaiting an answer; more are refused at once (`busy`). */
  maxPending: number;
  /** Plugin → kernel requests being served; more are answered `busy` at once. */
  maxInflight: number;
  /** The rate-limit interval of the log budgets and of the flood count, ms. */
  intervalMs: number;
  /** stderr lines re-logged per interval; the rest are counted in one line. */
  stderrLines: number;
  /** Longest stderr line re-logged, bytes; the rest of the line is cut. */
  stderrLineBytes: number;
  /** Protocol errors (bad or unexpected frames) logged per interval; the rest are counted. */
  loggedErrors: number;
  /** Protocol errors within one interval past which the plugin is disconnected. */
  maxErrors: number;
}

/** The defaults: generous for a working plugin, small enough that none can exhaust the daemon. */
export const DEFAULT_CHANNEL_LIMITS: Readonly<ChannelLimits> = {
  maxFrameBytes: MAX_FRAME_BYTES,
  maxQueueBytes: 16 * 1024 * 1024,
  maxQueueFrames: 10_000,
  stallMs: 30_000,
  maxPending: MAX_IN_FLIGHT,
  maxInflight: 256,
  intervalMs: 10_000,
  stderrLines: 100,
  stderrLineBytes: 8192,
  loggedErrors: 20,
  maxErrors: 1000,
};

/** The defaults overridden by `overrides`. */
export function channelLimits(overrides: Partial<ChannelLimits> = {}): ChannelLimits {
  const limits = { ...DEFAULT_CHANNEL_LIMITS };
  for (const [key, value] of Object.entries(overrides)) {
    if (value !== undefined) limits[key as keyof ChannelLimits] = value;
  }
  return limits;
}

/** A count formatted for a person: 48,211. */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** Options of a LogBudget. */
export interface LogBudgetOptions {
  clock: Clock;
  /** Lines allowed per interval. */
  limit: number;
  intervalMs: number;
  /** Called once per interval in which lines were refused: how many, over how many seconds. */
  onSuppressed(count: number, seconds: number): void;
}

/**
 * Lets `limit` lines per interval through and counts the rest. The count is reported when the
 * interval ends (a timer on the clock) or at `flush()`, so a flood becomes one line per interval
 * and no refused line goes uncounted.
 */
export class LogBudget {
  #options: LogBudgetOptions;
  #windowStart = -Infinity;
  #used = 0;
  #suppressed = 0;
  #timer: TimerHandle | undefined;

  constructor(options: LogBudgetOptions) {
    this.#options = options;
  }

  /** True when one more line may be logged now; false means it was counted instead. */
  take(): boolean {
    const { clock, limit, intervalMs } = this.#options;
    const now = clock.monotonic();
    if (now - this.#windowStart >= intervalMs) {
      this.flush();
      this.#windowStart = now;
      this.#used = 0;
    }
    if (this.#used < limit) {
      this.#used++;
      return true;
    }
    this.#suppressed++;
    this.#timer ??= clock.setTimer(this.#windowStart + intervalMs - now, () => {
      this.#timer = undefined;
      this.flush();
    });
    return false;
  }

  /** Report the refused lines counted so far (at the interval's end, or when the plugin exits). */
  flush(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    if (this.#suppressed === 0) return;
    const elapsed = this.#options.clock.monotonic() - this.#windowStart;
    const count = this.#suppressed;
    this.#suppressed = 0;
    this.#options.onSuppressed(count, Math.max(1, Math.ceil(elapsed / 1000)));
  }
}
