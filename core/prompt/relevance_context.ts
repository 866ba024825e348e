/**
 * RelevanceContext (ARCHITECTURE.md "Context Layer"): the chronological working window whose
 * least relevant events sink to the document layer. An event's vector is computed once and kept
 * on it: an input's by the turn's own query (prune, recall), a reply's in the background when it
 * is stored, so a turn embeds only its input (issue 14). Every change is journaled through the ContextStore port: `commit`
 * makes the changes so far durable (the Agent awaits it before a reply goes out), and a
 * debounced, atomic snapshot compacts the journal.
 */
import type { TokenCounter } from "./budget.ts";
import type {
  ContextEvent,
  ContextStore,
  ContextWindow,
  ReplayedContext,
  TimelineOptions,
} from "./context.ts";
import { budgetedTimeline, replayContext } from "./context.ts";
import type { Embedder, EmbedPriority } from "../memory/embedding.ts";
import type { Clock, Logger } from "../ports.ts";
import { errorMessage } from "../errors.ts";
import { ContextPersistence } from "./context_persistence.ts";
import type { TextRedactor } from "../memory/forget.ts";
import { bestExchanges, planPrune } from "./_exchanges.ts";
import { cleanText, dotScores, redactEvent, textForVector } from "./event_text.ts";

export { cleanText, redactEvent, textForVector };

/** Scores `query` against each vector (all L2-normalised, same space); dot product by default. */
export type VectorScorer = (query: Float32Array, vectors: readonly Float32Array[]) => Float32Array;

/** Options of a RelevanceContext. */
export interface RelevanceContextOptions {
  clock: Clock;
  logger: Logger;
  embedder: Embedder;
  store: ContextStore;
  /**
   * Receives the pruned events that should be kept as documents (original timestamps); they
   * are durable when it resolves. Must be idempotent: after a crash the same events are handed
   * over again and must not be stored twice (the document store stores equal content once).
   */
  archive: (events: ContextEvent[]) => Promise<void>;
  /**
   * Exchanges a prune keeps besides the recent ones (`core.agent.max_context_size`), read at
   * each prune; the window is pruned once more older exchanges than this are held.
   */
  topK: () => number;
  /** The newest events never evicted (with the rest of their exchanges); default 10. */
  keepRecent?: number;
  /** Sources whose pruned events are dropped, not archived; default agentcli and terminal. */
  unarchivedSources?: readonly string[];
  /** Delay from a change to the snapshot that compacts the journal; default 5000. */
  debounceMs?: number;
  scorer?: VectorScorer;
  /** Blanks out forgotten names in every event as it enters the window. */
  redactor?: TextRedactor;
}

/** What one prune did. */
export interface PruneResult {
  kept: number;
  archived: number;
  dropped: number;
}

/** The working window with relevance pruning, archiving and journaled persistence. */
export class RelevanceContext implements ContextWindow {
  #events: ContextEvent[];
  #options: RelevanceContextOptions;
  #persist: ContextPersistence;
  /** Ids of events whose archive is under way (their `archive` record is written). */
  #archiving = new Set<string>();
  #pruning: Promise<unknown> = Promise.resolve();
  #lastQuery?: { text: string; fingerprint: string; vector: Float32Array };
  /** Replies and recalled documents embedded in the background since they were stored. */
  #pending = new Set<ContextEvent>();
  #embedding: Promise<void> = Promise.resolve();

  private constructor(options: RelevanceContextOptions, replayed: ReplayedContext) {
    this.#options = options;
    this.#events = replayed.events;
    this.#persist = new ContextPersistence({
      store: options.store,
      clock: options.clock,
      logger: options.logger,
      debounceMs: options.debounceMs ?? 5000,
      seq: replayed.seq,
      state: () => ({ events: [...this.#events], archiving: [...this.#archiving] }),
    });
  }

  /**
   * Load the saved window (snapshot plus journal) and return the context. An archive that a
   * crash interrupted is finished first, so its events end up in documents only.
   */
  static async load(options: RelevanceContextOptions): Promise<RelevanceContext> {
    const stored = await options.store.load();
    const replayed = replayContext(stored);
    const context = new RelevanceContext(options, replayed);
    await context.#finishArchive(replayed.archiving);
    if (stored.journal.length > 0) context.#persist.changed(); // compact the replayed journal
    return context;
  }

  /** Add an event at the end of the timeline and schedule a save. */
  append(event: ContextEvent): void {
    event = this.#redacted(event);
    this.#events.push(event);
    this.#persist.record({ op: "add", event: withoutVector(event) });
    this.#embedLater(event);
  }

  /** Put an event back at its chronological place (documents recalled into the window). */
  insert(event: ContextEvent): void {
    event = this.#redacted(event);
    let at = this.#events.length;
    while (at > 0 && this.#events[at - 1]!.timestamp > event.timestamp) at--;
    this.#events.splice(at, 0, event);
    this.#persist.record({ op: "add", event: withoutVector(event) });
    this.#embedLater(event);
  }

  /**
   * Embed a stored reply (or a document moved back) in the background, so the next turn's
   * recall finds its vector. An input is left to the turn: its query embeds that very text.
   */
  #embedLater(event: ContextEvent): void {
    if (event.role === "user" || !this.#stale(event)) return;
    this.#pending.add(event);
    this.#embedding = this.#embedding.then(async () => {
      try {
        if (this.#pending.has(event)) await this.#embed([event], undefined, "background");
      } catch (error) {
        // Not lost: the next recall or prune embeds it (interactively) instead.
        this.#options.logger.warn("Cannot embed a context event in the background", {
          id: event.id,
          error: errorMessage(error),
        });
      } finally {
        this.#pending.delete(event);
      }
    });
  }

  /**
   * The stored vectors of the events by their text (textForVector), in the current space, and
   * the last query's: what recall's query reuses instead of embedding those turns again.
   */
  knownVectors(): (text: string) => Float32Array | undefined {
    const byText = new Map<string, Float32Array>();
    for (const event of this.#events) {
      if (!this.#stale(event)) byText.set(textForVector(event), event.vector!.vector);
    }
    const last = this.#lastQuery;
    if (last?.fingerprint === this.#options.embedder.fingerprint) {
      byText.set(last.text, last.vector);
    }
    return (text) => byText.get(cleanText(text));
  }

  /**
   * Blank out what `redactor` finds in every event (their vectors are recomputed later), then
   * write a snapshot at once, which also empties the journal that held the old text. Resolves
   * how many events changed; rejects when the snapshot cannot be written.
   */
  async redact(redactor: TextRedactor): Promise<number> {
    let changed = 0;
    this.#events = this.#events.map((event) => {
      const next = redactEvent(event, redactor);
      if (next !== event) changed++;
      return next;
    });
    if (changed > 0) await this.#persist.snapshot();
    return changed;
  }

  #redacted(event: ContextEvent): ContextEvent {
    return this.#options.redactor ? redactEvent(event, this.#options.redactor) : event;
  }

  /** Resolves once every change so far is in the journal (see ContextWindow.commit). */
  commit(): Promise<void> {
    return this.#persist.commit();
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

  /** Relevance of every event to `query`, by id (the prompt's timeline cut). */
  async relevance(query: string, signal?: AbortSignal): Promise<ReadonlyMap<string, number>> {
    const events = [...this.#events]; // a prune may replace the list while this awaits
    if (events.length === 0) return new Map();
    const queryVector = await this.queryVector(query, signal);
    await this.#ensureVectors(events, signal);
    const scores = (this.#options.scorer ?? dotScores)(
      queryVector,
      events.map((e) => e.vector!.vector),
    );
    return new Map(events.map((e, i) => [e.id, scores[i]!]));
  }

  /** Relevance of every event to `query` (for the memory view), in timeline order. */
  async scores(query: string, signal?: AbortSignal): Promise<number[]> {
    if (this.#events.length === 0) return [];
    const queryVector = await this.queryVector(query, signal);
    await this.#ensureVectors(this.#events, signal);
    const scorer = this.#options.scorer ?? dotScores;
    return [...scorer(queryVector, this.#events.map((e) => e.vector!.vector))];
  }

  /**
   * The vector of `query` (whitespace-normalised) in the window's space. The last one is kept,
   * and an event of the same text lends its own, so a turn's prune, recall and prompt embed
   * the input once; the newest event, when it is that input, keeps it as its own vector.
   */
  async queryVector(query: string, signal?: AbortSignal): Promise<Float32Array> {
    const text = cleanText(query);
    const { embedder } = this.#options;
    const known = this.knownVectors()(text);
    if (known) return known;
    const [vector] = await embedder.embed([text], { signal });
    this.#lastQuery = { text, fingerprint: embedder.fingerprint, vector: vector! };
    const newest = this.#events.at(-1);
    if (newest && this.#stale(newest) && textForVector(newest) === text) {
      newest.vector = { fingerprint: embedder.fingerprint, vector: vector! };
      this.#persist.changed();
    }
    return vector!;
  }

  /** Whether `event` lacks a vector of the current space. */
  #stale(event: ContextEvent): boolean {
    const { embedder } = this.#options;
    return event.vector?.fingerprint !== embedder.fingerprint ||
      event.vector.vector.length !== embedder.dim;
  }

  /**
   * Keep the exchanges of the newest `keepRecent` events and the `topK` most relevant other
   * exchanges; archive the rest (original timestamps), each exchange whole.
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
    const { older } = planPrune(this.#events, this.#options.keepRecent ?? 10);
    if (older.length <= topK) return { kept: total, archived: 0, dropped: 0 };
    // NoMemory events are never scored: an exchange of only those is the first to go.
    const candidates = older.flat().filter((e) => !e.noMemory);
    const scores = new Map<ContextEvent, number>();
    if (topK > 0 && candidates.length > 0) {
      const queryVector = await this.queryVector(query, signal);
      await this.#ensureVectors(candidates, signal);
      const scorer = this.#options.scorer ?? dotScores;
      const scored = scorer(queryVector, candidates.map((e) => e.vector!.vector));
      candidates.forEach((e, i) => scores.set(e, scored[i]!));
    }
    const keep = bestExchanges(older, scores, topK);
    // An archive begun earlier and not finished (it failed) is finished now, whatever the scores.
    const evicted = older.filter((x) => !keep.has(x) || x.some((e) => this.#archiving.has(e.id)))
      .flat();
    const unarchived = new Set(this.#options.unarchivedSources ?? ["agentcli", "terminal"]);
    const toArchive = evicted.filter((e) => !unarchived.has(e.source) && !e.noMemory);
    if (toArchive.length > 0) await this.#archive(toArchive);
    this.#remove(evicted);
    const result = {
      kept: this.#events.length,
      archived: toArchive.length,
      dropped: evicted.length - toArchive.length,
    };
    this.#options.logger.info("Context pruned", { ...result });
    return result;
  }

  /**
   * Hand `events` to the archive, the window keeping them until it has them. The intent is
   * journaled durably first: a crash while documents are written leaves a record that the next
   * load finishes (see #finishArchive), never events both in documents and in the window. An
   * archive that fails may have written some documents, so its intent stays open and the next
   * prune archives those events again (equal content is stored once).
   */
  async #archive(events: ContextEvent[]): Promise<void> {
    const fresh = events.filter((e) => !this.#archiving.has(e.id)).map((e) => e.id);
    for (const id of fresh) this.#archiving.add(id);
    if (fresh.length > 0) this.#persist.record({ op: "archive", ids: fresh });
    await this.#persist.commit();
    await this.#options.archive(events);
  }

  /** Take `events` out of the live list (events appended meanwhile stay) and journal it. */
  #remove(events: readonly ContextEvent[]): void {
    if (events.length === 0) return;
    const gone = new Set(events);
    this.#events = this.#events.filter((e) => !gone.has(e));
    for (const e of events) this.#archiving.delete(e.id);
    this.#persist.record({ op: "remove", ids: events.map((e) => e.id) });
  }

  /** Finish the archives a crash interrupted: archive again (idempotent), then remove. */
  async #finishArchive(ids: ReadonlySet<string>): Promise<void> {
    const events = this.#events.filter((e) => ids.has(e.id));
    if (events.length === 0) return;
    for (const e of events) this.#archiving.add(e.id);
    try {
      await this.#options.archive(events);
    } catch (error) {
      // The intent stays open (snapshots carry it), so the next start tries again.
      this.#options.logger.error("Cannot finish archiving context events after a crash", {
        events: events.length,
        error: errorMessage(error),
      });
      return;
    }
    this.#remove(events);
    await this.#persist.commit();
    this.#options.logger.warn("Finished archiving context events interrupted by a crash", {
      events: events.length,
    });
  }

  /**
   * Write a snapshot now if anything changed (shutdown, heartbeat); waits for any write and for
   * the background embedding of stored events.
   */
  async flush(): Promise<void> {
    await this.#embedding;
    return await this.#persist.flush();
  }

  /** How many events have no vector in the current space. */
  staleVectors(): number {
    return this.#events.filter((e) => this.#stale(e)).length;
  }

  /** Embed every event that has no vector in the current space (at `priority`); the count. */
  reembed(options: { signal?: AbortSignal; priority?: EmbedPriority } = {}): Promise<number> {
    return this.#ensureVectors(this.#events, options.signal, options.priority);
  }

  async #ensureVectors(
    events: readonly ContextEvent[],
    signal?: AbortSignal,
    priority?: EmbedPriority,
  ): Promise<number> {
    // An event embedding in the background is waited for, not embedded twice.
    if (events.some((e) => this.#pending.has(e))) await this.#embedding;
    return await this.#embed(events, signal, priority);
  }

  /** Embed the events that lack a vector of the current space; the count. */
  async #embed(
    events: readonly ContextEvent[],
    signal?: AbortSignal,
    priority?: EmbedPriority,
  ): Promise<number> {
    const embedder = this.#options.embedder;
    const stale = events.filter((e) => this.#stale(e));
    if (stale.length === 0) return 0;
    const texts = stale.map((e) => textForVector(e));
    const vectors = await embedder.embed(texts, { signal, priority });
    stale.forEach((e, i) => e.vector = { fingerprint: embedder.fingerprint, vector: vectors[i]! });
    this.#persist.changed(); // vectors reach disk with the next snapshot; they can be recomputed
    return stale.length;
  }
}

/** The event without its vector: journal lines stay small, and vectors can be recomputed. */
function withoutVector(event: ContextEvent): ContextEvent {
  const { vector: _, ...rest } = event;
  return rest;
}
