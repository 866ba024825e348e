/** The input queue: inputs wait here, in order, until the agent is free to run them. */
import type { Input } from "./input.ts";

/** A bounded FIFO where interrupts go ahead of plain inputs (preemption comes with the scheduler). */
export class Inbox {
  #interrupts: Input[] = [];
  #queued: Input[] = [];
  #capacity: number;

  constructor(options: { capacity?: number } = {}) {
    this.#capacity = options.capacity ?? 256;
  }

  /** Add `input`; returns false when the inbox is full (the caller must refuse it aloud). */
  push(input: Input): boolean {
    if (this.size >= this.#capacity) return false;
    if (input.interrupt) this.#interrupts.push(input);
    else this.#queued.push(input);
    return true;
  }

  /** Take the next input: the oldest interrupt, else the oldest plain input. */
  shift(): Input | undefined {
    return this.#interrupts.shift() ?? this.#queued.shift();
  }

  /** Remove and return everything still waiting (shutdown). */
  drain(): Input[] {
    const all = [...this.#interrupts, ...this.#queued];
    this.#interrupts = [];
    this.#queued = [];
    return all;
  }

  /** Inputs waiting. */
  get size(): number {
    return this.#interrupts.length + this.#queued.length;
  }

  /** The configured capacity. */
  get capacity(): number {
    return this.#capacity;
  }
}
