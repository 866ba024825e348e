/**
 * When the guard restarts the agent, and how: a short backoff for the first crashes, then
 * fail-back boot (only the built-in plugins and memory) once crashes come too fast, since an
 * installed plugin or a setting it brings is the likeliest cause of an agent that keeps dying.
 * Pure policy over monotonic times; the guard does the waiting.
 */

/** How the agent is started: everything, or only the built-in plugins and memory. */
export type Boot = "normal" | "failback";

/** One unasked exit of the agent. */
export interface Crash {
  /** Monotonic ms. */
  at: number;
  /** What happened, in words: `killed by SIGKILL`, `no heartbeat for 30 s`, … */
  reason: string;
}

/** Options of a GuardPolicy. */
export interface GuardPolicyOptions {
  /** Delay before the restart after the 1st, 2nd … crash of a normal boot, ms. */
  backoffMs?: readonly number[];
  /** Delay before each restart in fail-back boot (the last one repeats), ms. */
  failbackBackoffMs?: readonly number[];
  /** Crashes older than this are forgotten, ms. */
  windowMs?: number;
  /** This many crashes within the window switch to fail-back boot. */
  failbackAfter?: number;
}

/** What the guard does after a crash. */
export interface RestartPlan {
  delayMs: number;
  boot: Boot;
  /** Crashes within the window, this one included. */
  crashes: number;
  /** This crash is the one that switched to fail-back boot. */
  enteringFailback: boolean;
}

/** Defaults: restart at once, then after 1 s; the 3rd crash in 5 minutes means fail-back boot. */
export const GUARD_POLICY_DEFAULTS = {
  backoffMs: [100, 1000],
  failbackBackoffMs: [1000, 5000, 15_000, 30_000, 60_000],
  windowMs: 5 * 60_000,
  failbackAfter: 3,
} as const satisfies Required<GuardPolicyOptions>;

/**
 * Remembers the agent's recent crashes and decides each restart. Fail-back boot, once entered,
 * lasts for the guard's life: the owner restarts HomeAgent to boot normally again.
 */
export class GuardPolicy {
  #options: Required<GuardPolicyOptions>;
  #crashes: Crash[] = [];
  #boot: Boot = "normal";
  #failbackRestarts = 0;

  constructor(options: GuardPolicyOptions = {}) {
    this.#options = { ...GUARD_POLICY_DEFAULTS, ...options };
    if (this.#options.failbackAfter < 1) throw new RangeError("failbackAfter must be at least 1");
  }

  /** The boot of the next start. */
  get boot(): Boot {
    return this.#boot;
  }

  /** The crashes within the window, oldest first, as of the last record. */
  get recent(): readonly Crash[] {
    return this.#crashes;
  }

  /** The window the crashes are counted in, ms. */
  get windowMs(): number {
    return this.#options.windowMs;
  }

  /** Record a crash at monotonic time `at` and plan the restart. */
  crashed(at: number, reason: string): RestartPlan {
    const { windowMs, failbackAfter, backoffMs, failbackBackoffMs } = this.#options;
    this.#crashes = this.#crashes.filter((c) => at - c.at < windowMs);
    this.#crashes.push({ at, reason });
    const crashes = this.#crashes.length;
    if (this.#boot === "failback") {
      const delayMs = pick(failbackBackoffMs, this.#failbackRestarts++);
      return { delayMs, boot: "failback", crashes, enteringFailback: false };
    }
    if (crashes >= failbackAfter) {
      this.#boot = "failback";
      const delayMs = pick(failbackBackoffMs, this.#failbackRestarts++);
      return { delayMs, boot: "failback", crashes, enteringFailback: true };
    }
    return {
      delayMs: pick(backoffMs, crashes - 1),
      boot: "normal",
      crashes,
      enteringFailback: false,
    };
  }

  /**
   * The agent ran for `ms` without crashing: in fail-back boot the backoff starts over, so a
   * rare crash after a long quiet run is restarted quickly again.
   */
  ranFor(ms: number): void {
    if (ms >= this.#options.windowMs) this.#failbackRestarts = 0;
  }
}

function pick(delays: readonly number[], index: number): number {
  if (delays.length === 0) return 0;
  return delays[Math.min(index, delays.length - 1)]!;
}
