/**
 * Recalled marks (issue 14): a fact the model fetched itself with `memory_recall` is left out
 * of the automatic "[Memory Index]" for a while — it is in the conversation already — and then
 * comes back, after `core.memory.recall.recalled_turns` recalls or
 * `core.memory.recall.recalled_minutes`, whichever is first. Without an expiry a fact looked up
 * once would never be injected again while the daemon runs.
 * @module
 */
import type { Clock } from "../../core/mod.ts";
import { DEFAULT_MARK_LIFETIME, type MarkLifetime } from "./config.ts";

export { type MarkLifetime };

/** Options of RecalledMarks. */
export interface RecalledMarksOptions {
  clock: Clock;
  /** Read at every check, so a change applies at once; default DEFAULT_MARK_LIFETIME. */
  lifetime?: () => MarkLifetime;
  /** Most marks held (the oldest go first); default 512. */
  capacity?: number;
}

/** Fact ids marked as recalled, each until its turns or its time run out. */
export class RecalledMarks {
  #o: RecalledMarksOptions;
  /** id → when it was marked, in insertion (oldest first) order. */
  #marks = new Map<number, { turn: number; at: number }>();
  #turn = 0;

  constructor(options: RecalledMarksOptions) {
    this.#o = options;
  }

  /** Mark `ids` now (a mark made again starts over). */
  mark(ids: Iterable<number>): void {
    const at = this.#o.clock.now();
    for (const id of ids) {
      this.#marks.delete(id);
      this.#marks.set(id, { turn: this.#turn, at });
    }
    const capacity = this.#o.capacity ?? 512;
    for (const id of this.#marks.keys()) {
      if (this.#marks.size <= capacity) break;
      this.#marks.delete(id);
    }
  }

  /** Marks held (expired ones included until checked): at most this many facts are left out. */
  get size(): number {
    return this.#marks.size;
  }

  /** One automatic recall began: marks age by a turn. */
  nextTurn(): void {
    this.#turn++;
  }

  /** Whether `id` is marked and its mark still holds (an expired one is dropped). */
  has(id: number): boolean {
    const mark = this.#marks.get(id);
    if (!mark) return false;
    const life = (this.#o.lifetime ?? (() => DEFAULT_MARK_LIFETIME))();
    const held = this.#turn - mark.turn <= life.turns && this.#o.clock.now() - mark.at < life.ms;
    if (!held) this.#marks.delete(id);
    return held;
  }
}
