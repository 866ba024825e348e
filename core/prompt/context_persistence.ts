/**
 * How a RelevanceContext reaches its store: changes are numbered and queued as journal records,
 * `commit` appends the queue (one durable write per call, however many changes it holds), and a
 * debounced snapshot compacts the journal. Every store call runs after the previous one ended,
 * so a snapshot can never truncate records written while it was being taken.
 */
import type {
  ContextChange,
  ContextRecord,
  ContextSnapshot,
  ContextStore,
  ContextWindow,
} from "./context.ts";
import type { Reply } from "../input.ts";
import type { Clock, Logger, TimerHandle } from "../ports.ts";
import { errorMessage } from "../errors.ts";

/** Options of a ContextPersistence. */
export interface ContextPersistenceOptions {
  store: ContextStore;
  clock: Clock;
  logger: Logger;
  /** Delay from a change to the snapshot that includes it. */
  debounceMs: number;
  /** The window as it is now (events and open archives), read when a snapshot is written. */
  state(): Pick<ContextSnapshot, "events" | "archiving">;
  /** The last record number already used (from the replay at load). */
  seq: number;
}

/** The journal queue and snapshot schedule of one window. */
export class ContextPersistence {
  #o: ContextPersistenceOptions;
  #seq: number;
  #pending: ContextRecord[] = [];
  #io: Promise<void> = Promise.resolve();
  #timer?: TimerHandle;
  #dirty = false;

  constructor(options: ContextPersistenceOptions) {
    this.#o = options;
    this.#seq = options.seq;
  }

  /** Queue a change for the journal and schedule a snapshot. */
  record(change: ContextChange): void {
    this.#pending.push({ ...change, seq: ++this.#seq });
    this.changed();
  }

  /** Schedule a snapshot (a change the journal does not carry, e.g. new vectors). */
  changed(): void {
    this.#dirty = true;
    if (this.#timer) return;
    this.#timer = this.#o.clock.setTimer(this.#o.debounceMs, () => {
      this.#timer = undefined;
      this.#save().catch(() => {}); // logged inside; retried with the next change or flush
    });
  }

  /**
   * Resolves once every change recorded so far is durable: the queued records are appended in
   * one write after any store call under way, or a snapshot already holds them. On failure the
   * records stay queued and the next commit (or snapshot) writes them.
   */
  commit(): Promise<void> {
    const run = this.#io.then(() => this.#appendPending());
    this.#io = run.catch(() => {});
    return run;
  }

  /** Write a snapshot now if anything changed, after any store call under way. */
  async flush(): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    if (this.#dirty) await this.#save().catch(() => {});
    await this.#io;
  }

  /** Write a snapshot now, changed or not; rejects when it cannot be written. */
  snapshot(): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    return this.#save();
  }

  async #appendPending(): Promise<void> {
    const append = this.#o.store.append;
    if (!append || this.#pending.length === 0) return;
    const records = this.#pending;
    this.#pending = [];
    try {
      await append.call(this.#o.store, records);
    } catch (error) {
      this.#pending = [...records, ...this.#pending];
      this.#o.logger.error("Cannot write the context window journal", {
        error: errorMessage(error),
      });
      throw error;
    }
  }

  #save(): Promise<void> {
    this.#dirty = false;
    const run = this.#io.then(async () => {
      const snapshot: ContextSnapshot = { version: 1, seq: this.#seq, ...this.#o.state() };
      await this.#o.store.save(snapshot);
      // The snapshot holds every change numbered so far: those records need no journal line.
      this.#pending = this.#pending.filter((r) => r.seq > snapshot.seq!);
    }).catch((error) => {
      this.#dirty = true;
      this.#o.logger.error("Cannot save the context window", { error: errorMessage(error) });
      throw error;
    });
    this.#io = run.catch(() => {});
    return run;
  }
}

/**
 * `reply` once the turn it answers is durable in `context` (the Agent awaits this before the
 * reply goes out). When the window cannot be written, the answer still goes out, as an error
 * that says it was not remembered: it is not acknowledged as done.
 */
export async function durableReply(context: ContextWindow, reply: Reply): Promise<Reply> {
  if (!context.commit) return reply;
  try {
    await context.commit();
    return reply;
  } catch (error) {
    return {
      ...reply,
      status: "error",
      errorCode: "context_not_saved",
      text: `${reply.text}\n\n(Cannot save this turn to memory: ${errorMessage(error)})`,
    };
  }
}
