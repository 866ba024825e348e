/**
 * Crash accounting: restart with backoff 1 s, 2 s, 3 s; give up after the 4th crash in 5 minutes.
 * And the bound on a plugin's start.
 */
import {
  type Clock,
  type Plugin,
  PluginError,
  type PluginSDK,
  type TimerHandle,
} from "../../core/mod.ts";

/** Options of a CrashPolicy. */
export interface CrashPolicyOptions {
  /** Delay before restart after the 1st, 2nd, 3rd … crash in the window, ms. */
  backoffMs?: readonly number[];
  /** Crashes older than this are forgotten, ms. */
  windowMs?: number;
  /** Give up at this many crashes within the window. */
  maxCrashes?: number;
}

/** What to do after a crash. */
export type CrashDecision = { restart: true; delayMs: number; crashes: number } | {
  restart: false;
  crashes: number;
};

/** Remembers crash times of one plugin and decides whether and when to restart it. */
export class CrashPolicy {
  #times: number[] = [];
  #backoff: readonly number[];
  #windowMs: number;
  #max: number;

  constructor(options: CrashPolicyOptions = {}) {
    this.#backoff = options.backoffMs ?? [1000, 2000, 3000];
    this.#windowMs = options.windowMs ?? 5 * 60_000;
    this.#max = options.maxCrashes ?? 4;
  }

  /** Record a crash at monotonic time `now` and decide. */
  crashed(now: number): CrashDecision {
    this.#times = this.#times.filter((t) => now - t < this.#windowMs);
    this.#times.push(now);
    const crashes = this.#times.length;
    if (crashes >= this.#max) return { restart: false, crashes };
    const delayMs = this.#backoff[Math.min(crashes, this.#backoff.length) - 1] ?? 1000;
    return { restart: true, delayMs, crashes };
  }

  /** Crashes within the window as of the last record. */
  get recent(): number {
    return this.#times.length;
  }

  /** Forget every crash (manual reload or enable). */
  reset(): void {
    this.#times = [];
  }
}

/** Options of startWithin. */
export interface StartWithinOptions {
  ms: number;
  clock: Clock;
  /** The setting that holds `ms`, named in the error. */
  setting: string;
}

/**
 * Start `plugin`, or throw PluginError once `ms` pass: the plugin is then stopped without
 * waiting (a Lua worker or a child process ends; a built-in's start is abandoned), and a start
 * that settles later is not reported again.
 */
export async function startWithin(
  plugin: Plugin,
  sdk: PluginSDK,
  options: StartWithinOptions,
): Promise<void> {
  const starting = (async () => await plugin.start(sdk))();
  const late = new PluginError(
    plugin.name,
    `Plugin "${plugin.name}" did not start within ${options.ms} ms (${options.setting})`,
  );
  let timer: TimerHandle | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = options.clock.setTimer(options.ms, () => reject(late));
  });
  try {
    await Promise.race([starting, timeout]);
  } catch (error) {
    if (error === late) {
      starting.catch(() => {});
      void (async () => await plugin.stop())().catch(() => {});
    }
    throw error;
  } finally {
    timer?.cancel();
  }
}
