/** A counting semaphore whose limit may change between acquisitions (per-source max_concurrent). */
import { AbortedError } from "../errors.ts";

/** Limits how many holders run at once; waiters are served first come, first served. */
export class Semaphore {
  #active = 0;
  #waiting: (() => void)[] = [];
  limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Holders right now. */
  get active(): number {
    return this.#active;
  }

  /** Waiters right now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Wait for a slot; resolves to its release function. Rejects with AbortedError on abort. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new AbortedError("LLM call aborted"));
    if (this.#active < this.limit) return Promise.resolve(this.#grant());
    return new Promise((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(this.#grant());
      };
      const onAbort = () => {
        this.#waiting = this.#waiting.filter((w) => w !== wake);
        reject(new AbortedError("LLM call aborted while waiting for a free slot"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(wake);
    });
  }

  #grant(): () => void {
    this.#active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active--;
      while (this.#active < this.limit && this.#waiting.length > 0) this.#waiting.shift()!();
    };
  }
}
