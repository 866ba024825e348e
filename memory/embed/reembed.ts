/**
 * Moving every tier's vectors into the current space after it changed (a model installed): the
 * context window, the documents and the graph's entities, one after another, at background
 * priority (the owner's turns go first), with progress in the log and in `status()` for
 * `homeagent status` and the web UI. Until an item is re-embedded it is found by its words only.
 * @module
 */
import type { Clock, EmbedPriority, Logger } from "../../core/mod.ts";
import { errorMessage } from "../../core/mod.ts";

/** The tiers that hold vectors. */
export type ReembedTier = "context" | "documents" | "graph";

/** Options of a store's `reembedStale`. */
export interface StaleReembedOptions {
  /** Items per embed call. */
  batch?: number;
  signal?: AbortSignal;
  priority?: EmbedPriority;
  /** Items done so far, after each batch. */
  onProgress?: (done: number) => void;
}

/** Options a target's run gets. */
export interface ReembedRunOptions {
  signal?: AbortSignal;
  priority: EmbedPriority;
  /** Items of this tier done so far. */
  onProgress: (done: number) => void;
}

/** One tier's stale vectors. */
export interface ReembedTarget {
  tier: ReembedTier;
  /** How many items are from another space now. */
  stale(): number;
  /** Re-embed them; resolves with the count. */
  run(options: ReembedRunOptions): Promise<number>;
}

/** Where re-embedding stands. */
export interface ReembedStatus {
  state: "idle" | "running" | "done" | "failed" | "stopped";
  /** Items re-embedded so far, over all tiers. */
  done: number;
  total: number;
  /** The tier being worked on. */
  tier?: ReembedTier;
  startedAt?: number;
  finishedAt?: number;
  error?: string;
}

/** Options of Reembedder. */
export interface ReembedderOptions {
  targets: readonly ReembedTarget[];
  logger: Logger;
  clock: Clock;
}

/** Re-embeds the tiers once per run; `status()` is safe to call at any time. */
export class Reembedder {
  readonly #o: ReembedderOptions;
  #status: ReembedStatus = { state: "idle", done: 0, total: 0 };

  constructor(options: ReembedderOptions) {
    this.#o = options;
  }

  /** A copy of the current status. */
  status(): ReembedStatus {
    return { ...this.#status };
  }

  /** Re-embed every tier's stale items; never rejects (a failure is logged and in the status). */
  async run(signal?: AbortSignal): Promise<void> {
    const { logger, clock } = this.#o;
    const counts = this.#o.targets.map((t) => ({ target: t, stale: t.stale() }));
    const total = counts.reduce((sum, c) => sum + c.stale, 0);
    if (total === 0) {
      this.#status = { state: "done", done: 0, total: 0, finishedAt: clock.now() };
      return;
    }
    const startedAt = clock.now();
    this.#status = { state: "running", done: 0, total, startedAt };
    logger.info("Re-embedding memories into the current vector space", {
      total,
      ...Object.fromEntries(counts.map((c) => [c.target.tier, c.stale])),
    });
    let before = 0;
    let logged = 0;
    try {
      for (const { target, stale } of counts) {
        if (stale === 0) continue;
        this.#status.tier = target.tier;
        before += await target.run({
          signal,
          priority: "background",
          onProgress: (done) => {
            this.#status.done = Math.min(total, before + done);
            // A line per tenth of the work: enough to follow, not enough to flood the log.
            const tenth = Math.floor(this.#status.done * 10 / total);
            if (tenth > logged) {
              logged = tenth;
              logger.info("Re-embedding memories", {
                tier: target.tier,
                done: this.#status.done,
                total,
                percent: tenth * 10,
              });
            }
          },
        });
        this.#status.done = Math.min(total, before);
      }
      this.#finish("done");
      logger.info("Re-embedded memories", {
        count: this.#status.done,
        seconds: Math.round((clock.now() - startedAt) / 100) / 10,
      });
    } catch (error) {
      if (signal?.aborted) return this.#finish("stopped");
      this.#finish("failed", errorMessage(error));
      logger.error(
        "Re-embedding memories failed; the rest is found by its words until the next start",
        {
          tier: this.#status.tier,
          error: errorMessage(error),
        },
      );
    }
  }

  #finish(state: ReembedStatus["state"], error?: string): void {
    this.#status = { ...this.#status, state, finishedAt: this.#o.clock.now(), error };
    delete this.#status.tier;
  }
}
