/**
 * The queue in front of a model: one backend call at a time, in chunks of a few texts, the
 * owner's requests ("interactive") always before background re-embedding, so a turn waits at
 * most one background chunk — and a background chunk holds few characters (a model's time
 * grows with its tokens: eight stored documents are seconds of work, one query is ~15 ms).
 * A bounded LRU cache answers texts embedded lately: recall ranks the same window and
 * documents turn after turn.
 * @module
 */
import { type EmbedPriority, LruMap } from "../../core/mod.ts";

/** What the queue runs texts on. */
export interface QueueBackend {
  run(texts: string[]): Promise<Float32Array[]>;
  /** True when calls block the caller's thread (the queue then yields between chunks). */
  readonly inline: boolean;
}

/** Options of EmbedQueue. */
export interface EmbedQueueOptions {
  /** Texts per backend call; default 8. */
  chunk?: number;
  /** Vectors kept by text; default 4096 (a 512-dim model: about 8 MiB). 0 turns it off. */
  cacheSize?: number;
  /**
   * Characters per background call (at least one text); default 256. A query that arrives
   * while the call runs waits for it: ~256 tokens of Chinese, a few hundred ms on 2 cores.
   */
  backgroundChars?: number;
}

interface Job {
  texts: string[];
  vectors: Float32Array[];
  next: number;
  priority: EmbedPriority;
  signal?: AbortSignal;
  done: PromiseWithResolvers<Float32Array[]>;
}

/** Texts longer than this are not cached (their keys would cost more than their vectors). */
const MAX_CACHED_TEXT = 2048;

/** Serialises, prioritises and caches embedding requests to one backend. */
export class EmbedQueue {
  readonly #backend: QueueBackend;
  readonly #chunk: number;
  readonly #cacheSize: number;
  readonly #backgroundChars: number;
  readonly #cache: LruMap<string, Float32Array>;
  readonly #queues: Record<EmbedPriority, Job[]> = { interactive: [], background: [] };
  #running = false;
  #closed: Error | undefined;

  constructor(backend: QueueBackend, options: EmbedQueueOptions = {}) {
    this.#backend = backend;
    this.#chunk = Math.max(1, options.chunk ?? 8);
    this.#cacheSize = Math.max(0, options.cacheSize ?? 4096);
    this.#cache = new LruMap(this.#cacheSize);
    this.#backgroundChars = Math.max(1, options.backgroundChars ?? 256);
  }

  /** Vectors of `texts`, in order; rejects with the backend's error or the signal's reason. */
  async embed(
    texts: readonly string[],
    options: { signal?: AbortSignal; priority?: EmbedPriority } = {},
  ): Promise<Float32Array[]> {
    options.signal?.throwIfAborted();
    if (this.#closed) throw this.#closed;
    const found = new Map<string, Float32Array>();
    const missing: string[] = [];
    for (const text of new Set(texts)) {
      const vector = this.#recall(text);
      if (vector) found.set(text, vector);
      else missing.push(text);
    }
    if (missing.length > 0) {
      const job: Job = {
        texts: missing,
        vectors: [],
        next: 0,
        priority: options.priority ?? "interactive",
        signal: options.signal,
        done: Promise.withResolvers(),
      };
      this.#queues[job.priority].push(job);
      this.#pump();
      const vectors = await job.done.promise;
      missing.forEach((text, i) => {
        found.set(text, vectors[i]!);
        this.#remember(text, vectors[i]!);
      });
    }
    return texts.map((text) => found.get(text)!);
  }

  /** Reject everything queued; later calls reject with `reason`. */
  close(reason: Error): void {
    this.#closed = reason;
    for (const queue of Object.values(this.#queues)) {
      for (const job of queue.splice(0)) job.done.reject(reason);
    }
  }

  #recall(text: string): Float32Array | undefined {
    return this.#cache.get(text);
  }

  #remember(text: string, vector: Float32Array): void {
    if (this.#cacheSize === 0 || text.length > MAX_CACHED_TEXT) return;
    this.#cache.set(text, vector);
  }

  async #pump(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      for (let job = this.#pick(); job; job = this.#pick()) {
        const chunk = this.#take(job);
        try {
          job.vectors.push(...await this.#backend.run(chunk));
        } catch (error) {
          this.#drop(job);
          job.done.reject(error);
          continue;
        }
        job.next += chunk.length;
        if (job.next >= job.texts.length) {
          this.#drop(job);
          job.done.resolve(job.vectors);
        }
        // Inline, a chunk held the thread: let timers and IO run before the next one.
        if (this.#backend.inline) await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      this.#running = false;
    }
  }

  /** The job's next texts: up to `chunk`, and in the background up to the character budget. */
  #take(job: Job): string[] {
    const end = Math.min(job.texts.length, job.next + this.#chunk);
    if (job.priority === "interactive") return job.texts.slice(job.next, end);
    let at = job.next + 1;
    let chars = job.texts[job.next]!.length;
    while (at < end && chars + job.texts[at]!.length <= this.#backgroundChars) {
      chars += job.texts[at++]!.length;
    }
    return job.texts.slice(job.next, at);
  }

  /** The first live job, owner's requests first; aborted jobs are rejected on the way. */
  #pick(): Job | undefined {
    for (const priority of ["interactive", "background"] as const) {
      const queue = this.#queues[priority];
      while (queue.length > 0) {
        const job = queue[0]!;
        if (!job.signal?.aborted) return job;
        queue.shift();
        job.done.reject(job.signal.reason);
      }
    }
    return undefined;
  }

  #drop(job: Job): void {
    for (const queue of Object.values(this.#queues)) {
      const at = queue.indexOf(job);
      if (at >= 0) queue.splice(at, 1);
    }
  }
}
