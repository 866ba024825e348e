/**
 * RelevanceContext (ARCHITECTURE.md "Context Layer"): the chronological working window whose
 * least relevant events sink to the document layer. Vectors are computed lazily, in batches,
 * when a prune needs them; writes are debounced and atomic through the ContextStore port.
 */
import type { TokenCounter } from "./budget.ts";
import {
  type ContextEvent,
  type ContextSnapshot,
  type ContextStore,
  type ContextWindow,
  type TimelineOptions,
} from "./context.ts";
import { budgetedTimeline } from "./context.ts";
import type { Embedder } from "./embedding.ts";
import type { Clock, Logger, TimerHandle } from "./ports.ts";
import { errorMessage } from "./errors.ts";

/** How a tool's output may enter the memory computation layer. */
export interface ToolMemoryPolicy {
  noMemory?: boolean;
  cleaner?: (output: string) => string;
}

/** Scores `query` against each vector (all L2-normalised, same space); dot product by default. */
export type VectorScorer = (query: Float32Array, vectors: readonly Float32Array[]) => Float32Array;

/** Options of a RelevanceContext. */
export interface RelevanceContextOptions {
  clock: Clock;
  logger: Logger;
  embedder: Embedder;
  store: ContextStore;
  /** Receives the pruned events that should be kept as documents (original timestamps). */
  archive: (events: ContextEvent[]) => Promise<void>;
  /** Capacity before a prune trims (`core.agent.max_context_size`), read at each prune. */
  topK: () => number;
  /** The newest events never evicted; default 10. */
  keepRecent?: number;
  /** The memory policy of a tool by name (noMemory / cleaner). */
  toolPolicy?: (name: string) => ToolMemoryPolicy | undefined;
  /** Sources whose pruned events are dropped, not archived; default agentcli and terminal. */
  unarchivedSources?: readonly string[];
  debounceMs?: number;
  scorer?: VectorScorer;
}

/** What one prune did. */
export interface PruneResult {
  kept: number;
  archived: number;
  dropped: number;
}

/** Whitespace normalisation applied last before vectorising (CleanText). */
export function cleanText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The text an event is scored by: agent → response (+ tool outputs), user → input, cold → both. */
export function textForVector(
  event: ContextEvent,
  toolPolicy?: (name: string) => ToolMemoryPolicy | undefined,
): string {
  const parts: string[] = [];
  if (event.role === "user") parts.push(event.input ?? "");
  else if (event.role === "agent") {
    parts.push(event.response ?? "");
    for (const tool of event.tools ?? []) {
      const policy = toolPolicy?.(tool.name);
      if (policy?.noMemory) continue;
      parts.push(policy?.cleaner ? policy.cleaner(tool.output) : tool.output);
    }
  } else parts.push(event.input ?? "", event.response ?? "");
  return cleanText(parts.join("\n"));
}

function dotScores(query: Float32Array, vectors: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vectors.length);
  vectors.forEach((v, i) => {
    let sum = 0;
    for (let j = 0; j < v.length; j++) sum += v[j]! * query[j]!;
    out[i] = sum;
  });
  return out;
}

/** The working window with relevance pruning, archiving and debounced persistence. */
export class RelevanceContext implements ContextWindow {
  #events: ContextEvent[] = [];
  #options: RelevanceContextOptions;
  #timer?: TimerHandle;
  #saving: Promise<void> = Promise.resolve();
  #dirty = false;
  #pruning: Promise<unknown> = Promise.resolve();

  private constructor(options: RelevanceContextOptions) {
    this.#options = options;
  }

  /** Load the saved window (if any) and return the context. */
  static async load(options: RelevanceContextOptions): Promise<RelevanceContext> {
    const context = new RelevanceContext(options);
    const snapshot = await options.store.load();
    context.#events = [...(snapshot?.events ?? [])].sort((a, b) => a.timestamp - b.timestamp);
    return context;
  }

  /** Add an event at the end of the timeline and schedule a save. */
  append(event: ContextEvent): void {
    this.#events.push(event);
    this.#changed();
  }

  /** Put an event back at its chronological place (documents recalled into the window). */
  insert(event: ContextEvent): void {
    let at = this.#events.length;
    while (at > 0 && this.#events[at - 1]!.timestamp > event.timestamp) at--;
    this.#events.splice(at, 0, event);
    this.#changed();
  }

  /** The events, oldest first. */
  events(): readonly ContextEvent[] {
    return this.#events;
  }

  size(): number {
    return this.#events.length;
  }

  timeline(budgetTokens: number, count: TokenCounter, options?: TimelineOptions): ContextEvent[] {
    return budgetedTimeline(this.#events, budgetTokens, count, options);
  }

  /** Relevance of every event to `query` (for the memory view), in timeline order. */
  async scores(query: string, signal?: AbortSignal): Promise<number[]> {
    if (this.#events.length === 0) return [];
    const [queryVector] = await this.#options.embedder.embed([cleanText(query)], { signal });
    await this.#ensureVectors(this.#events, signal);
    const scorer = this.#options.scorer ?? dotScores;
    return [...scorer(queryVector!, this.#events.map((e) => e.vector!.vector))];
  }

  /**
   * When over capacity: keep the newest `keepRecent` events and the `topK - keepRecent` most
   * relevant others; archive the rest (original timestamps), restoring chronological order.
   */
  prune(query: string, signal?: AbortSignal): Promise<PruneResult> {
    // One prune at a time: a second one waits and then sees the first one's result.
    const run = this.#pruning.then(() => this.#prune(query, signal));
    this.#pruning = run.catch(() => {});
    return run;
  }

  async #prune(query: string, signal?: AbortSignal): Promise<PruneResult> {
    const topK = Math.max(0, this.#options.topK());
    const total = this.#events.length;
    if (total <= topK) return { kept: total, archived: 0, dropped: 0 };
    const keepRecent = Math.min(this.#options.keepRecent ?? 10, total);
    const candidates = this.#events.slice(0, total - keepRecent);
    const slots = Math.max(topK - keepRecent, 0);

    let keep = new Set<ContextEvent>();
    if (slots > 0) {
      const [queryVector] = await this.#options.embedder.embed([cleanText(query)], { signal });
      await this.#ensureVectors(candidates, signal);
      const scorer = this.#options.scorer ?? dotScores;
      const scores = scorer(queryVector!, candidates.map((e) => e.vector!.vector));
      const ranked = candidates.map((event, i) => ({ event, score: scores[i]!, i }))
        .sort((a, b) => b.score - a.score || b.i - a.i); // ties: the newer stays
      keep = new Set(ranked.slice(0, slots).map((r) => r.event));
    }
    const evicted = candidates.filter((e) => !keep.has(e));
    // The window changes only after the archive has the events: nothing is lost on failure.
    const unarchived = new Set(this.#options.unarchivedSources ?? ["agentcli", "terminal"]);
    const toArchive = evicted.filter((e) => !unarchived.has(e.source));
    if (toArchive.length > 0) await this.#options.archive(toArchive);
    const evictedSet = new Set(evicted);
    // Filter the live list: events appended while we awaited must survive.
    this.#events = this.#events.filter((e) => !evictedSet.has(e));
    this.#changed();
    const result = {
      kept: this.#events.length,
      archived: toArchive.length,
      dropped: evicted.length - toArchive.length,
    };
    this.#options.logger.info("Context pruned", { ...result });
    return result;
  }

  /** Write now if anything changed (shutdown); waits for any write under way. */
  async flush(): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    if (this.#dirty) this.#save();
    await this.#saving;
  }

  async #ensureVectors(events: readonly ContextEvent[], signal?: AbortSignal): Promise<void> {
    const embedder = this.#options.embedder;
    const stale = events.filter((e) =>
      e.vector?.fingerprint !== embedder.fingerprint || e.vector.vector.length !== embedder.dim
    );
    if (stale.length === 0) return;
    const texts = stale.map((e) => textForVector(e, this.#options.toolPolicy));
    const vectors = await embedder.embed(texts, { signal });
    stale.forEach((e, i) => e.vector = { fingerprint: embedder.fingerprint, vector: vectors[i]! });
    this.#changed();
  }

  #changed(): void {
    this.#dirty = true;
    if (this.#timer) return;
    this.#timer = this.#options.clock.setTimer(this.#options.debounceMs ?? 5000, () => {
      this.#timer = undefined;
      this.#save();
    });
  }

  #save(): void {
    this.#dirty = false;
    const snapshot: ContextSnapshot = { version: 1, events: [...this.#events] };
    this.#saving = this.#saving.then(() => this.#options.store.save(snapshot)).catch((error) => {
      this.#dirty = true; // try again with the next change or the final flush
      this.#options.logger.error("Cannot save the context window", {
        error: errorMessage(error),
      });
    });
  }
}
