/**
 * The circuit breaker of one stage handler. A handler that times out `threshold` times within
 * `windowMs` is opened: it is bypassed for a cool-off, so chats stop paying its timeout. After
 * the cool-off one run is let through as a probe (half-open) while others still bypass it; an
 * answer closes the breaker, another timeout opens it again for twice as long (up to a cap).
 * Pure policy on an injected clock; the StageHost runs handlers and publishes the changes.
 */
import type { Clock } from "../ports.ts";

/** Settings of a stage breaker. */
export interface StageBreakerOptions {
  /** Timeouts within the window that open the breaker; default 3. */
  threshold?: number;
  /** How far back timeouts count, ms; default 5 minutes. */
  windowMs?: number;
  /** First cool-off, ms; default 60 s. */
  coolOffMs?: number;
  /** Longest cool-off after failed probes, ms; default 10 minutes. */
  maxCoolOffMs?: number;
}

/** Whether a handler runs now: normally, as the half-open probe, or not at all. */
export type BreakerAdmission = "run" | "probe" | "skip";

/** A change worth a notice: opened (bypassed for `retryInMs`; `timeouts` since it last answered) or closed again. */
export type BreakerChange =
  | { state: "open"; timeouts: number; retryInMs: number }
  | { state: "closed" };

/** One handler's breaker: closed → open after repeated timeouts → half-open probe → closed. */
export class StageBreaker {
  #clock: Clock;
  #threshold: number;
  #windowMs: number;
  #baseCoolOff: number;
  #maxCoolOff: number;
  #state: "closed" | "open" | "half_open" = "closed";
  #timeouts: number[] = [];
  #openedAt = 0;
  #coolOff: number;

  constructor(clock: Clock, options: StageBreakerOptions = {}) {
    this.#clock = clock;
    this.#threshold = options.threshold ?? 3;
    this.#windowMs = options.windowMs ?? 5 * 60_000;
    this.#baseCoolOff = this.#coolOff = options.coolOffMs ?? 60_000;
    this.#maxCoolOff = options.maxCoolOffMs ?? 10 * 60_000;
  }

  /** Decide for one run. In half-open, only the first caller probes; the rest skip. */
  admit(): BreakerAdmission {
    if (this.#state === "closed") return "run";
    if (this.#state === "half_open") return "skip";
    if (this.#clock.monotonic() - this.#openedAt < this.#coolOff) return "skip";
    this.#state = "half_open";
    return "probe";
  }

  /** Record how an admitted run ended; returns the change to announce, if any. */
  record(admission: "run" | "probe", timedOut: boolean): BreakerChange | undefined {
    const now = this.#clock.monotonic();
    if (admission === "probe") {
      if (!timedOut) {
        this.#state = "closed";
        this.#timeouts = [];
        this.#coolOff = this.#baseCoolOff;
        return { state: "closed" };
      }
      this.#timeouts.push(now);
      this.#coolOff = Math.min(this.#coolOff * 2, this.#maxCoolOff);
      return this.#open(now);
    }
    // A run admitted before the breaker opened may end after: it changes nothing then.
    if (!timedOut || this.#state !== "closed") return undefined;
    this.#timeouts = this.#timeouts.filter((t) => now - t < this.#windowMs);
    this.#timeouts.push(now);
    if (this.#timeouts.length < this.#threshold) return undefined;
    this.#coolOff = this.#baseCoolOff;
    return this.#open(now);
  }

  #open(now: number): BreakerChange {
    this.#state = "open";
    this.#openedAt = now;
    return { state: "open", timeouts: this.#timeouts.length, retryInMs: this.#coolOff };
  }
}
