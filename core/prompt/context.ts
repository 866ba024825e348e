/** The working window: the chronological list of recent events the prompt is built from. */
import type { TokenCounter } from "./budget.ts";
import type { StoredVector } from "../memory/embedding.ts";

/** Who produced an event. `cold_storage` events come back from the document layer. */
export type ContextRole = "user" | "agent" | "cold_storage";

/** One event of the working window. */
export interface ContextEvent {
  id: string;
  role: ContextRole;
  source: string;
  channel: string;
  /** The user's words (user, cold_storage). */
  input?: string;
  /** The agent's words (agent, cold_storage). */
  response?: string;
  /**
   * Tool outputs of an agent turn, for relevance scoring (never shown in the timeline), as the
   * tool's memory policy lets them in: cleaned, and none of a `noMemory` tool.
   */
  tools?: { name: string; output: string }[];
  /** Ids of the turns (inputs) this event came from; documents keep them to map back. */
  turnIds?: string[];
  /**
   * The exchange (an input and the reply to it) the event belongs to; absent: its turn when it
   * has exactly one, else the event alone. An exchange is kept or archived whole.
   */
  exchange?: string;
  timestamp: number;
  /** Kept verbatim for the prompt, never scored, archived or distilled (NO_MEMORY_META). */
  noMemory?: boolean;
  /** The event's vector and the space it lives in, once computed. */
  vector?: StoredVector;
}

/** The exchange key of `event` (see ContextEvent.exchange). */
export function exchangeOf(event: ContextEvent): string {
  if (event.exchange !== undefined) return event.exchange;
  const turns = event.turnIds ?? [];
  return event.role !== "cold_storage" && turns.length === 1 ? `turn:${turns[0]}` : event.id;
}

/** Options of ContextWindow.timeline. */
export interface TimelineOptions {
  /** Id of an event to leave out. */
  exclude?: string;
  /**
   * Relevance of events (by id) to the input being answered. When not every event fits, the
   * newest `keepRecent` are kept and then the most relevant others; without it, newest first.
   */
  relevance?: ReadonlyMap<string, number>;
  /** With `relevance`: the newest events kept before any other; default 4. */
  keepRecent?: number;
  /** Told how many events (besides `exclude`) did not fit, so the prompt can say so. */
  onLeftOut?: (count: number) => void;
}

/**
 * The working window port. The kernel appends every input and reply and reads a budgeted
 * timeline back for the prompt. Implementations persist as they see fit.
 */
export interface ContextWindow {
  append(event: ContextEvent): void;
  /** Trim low-relevance events against `query` when over capacity (may archive them). */
  prune?(query: string, signal?: AbortSignal): Promise<unknown>;
  /**
   * Newest-first selection within `budgetTokens`, returned in chronological order; the event
   * `exclude` (the input being answered, sent as the user message) is skipped, not counted.
   */
  timeline(budgetTokens: number, count: TokenCounter, options?: TimelineOptions): ContextEvent[];
  /**
   * The relevance of each event to `query`, by event id (what TimelineOptions.relevance takes).
   * Absent: the timeline is cut newest first. May reject when its vector layer fails.
   */
  relevance?(query: string, signal?: AbortSignal): Promise<ReadonlyMap<string, number>>;
  size(): number;
  /**
   * Resolves once every change made so far is durable, so a reply may be acknowledged; rejects
   * when it cannot be written (the changes stay queued for the next call). Absent: in memory only.
   */
  commit?(): Promise<void>;
}

/** An in-memory window that keeps the newest `capacity` events. */
export class RecentContext implements ContextWindow {
  #events: ContextEvent[] = [];
  #capacity: number;

  constructor(options: { capacity?: number } = {}) {
    this.#capacity = options.capacity ?? 30;
  }

  append(event: ContextEvent): void {
    this.#events.push(event);
    if (this.#events.length > this.#capacity) {
      this.#events.splice(0, this.#events.length - this.#capacity);
    }
  }

  timeline(budgetTokens: number, count: TokenCounter, options?: TimelineOptions): ContextEvent[] {
    return budgetedTimeline(this.#events, budgetTokens, count, options);
  }

  size(): number {
    return this.#events.length;
  }

  /** The events held, oldest first (a copy). */
  events(): ContextEvent[] {
    return [...this.#events];
  }

  /** Replace every event (a resident's `compress`); the capacity still applies. */
  replace(events: readonly ContextEvent[]): void {
    this.#events = events.slice(-this.#capacity);
  }
}

/**
 * The events of `events` that fit in `budgetTokens`, returned oldest first: newest first, or —
 * when `relevance` is given and not all fit — the newest `keepRecent`, then the most relevant.
 * An event too long for what is left is skipped, not the end of the timeline.
 */
export function budgetedTimeline(
  events: readonly ContextEvent[],
  budgetTokens: number,
  count: TokenCounter,
  options: TimelineOptions = {},
): ContextEvent[] {
  const candidates = events.filter((e) => e.id !== options.exclude);
  const costs = new Map(candidates.map((e) => [e, count(formatEvent(e))]));
  const order = [...candidates].reverse(); // newest first
  const relevance = options.relevance;
  if (relevance && [...costs.values()].reduce((a, b) => a + b, 0) > budgetTokens) {
    const recent = order.slice(0, options.keepRecent ?? 4);
    const rest = order.slice(recent.length)
      .map((event, i) => ({ event, i, score: relevance.get(event.id) ?? 0 }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .map((r) => r.event);
    order.splice(0, order.length, ...recent, ...rest);
  }
  const picked = new Set<ContextEvent>();
  let used = 0;
  for (const event of order) {
    const cost = costs.get(event)!;
    if (used + cost > budgetTokens) {
      if (relevance) continue;
      break; // newest first: an older event never jumps a newer one that did not fit
    }
    used += cost;
    picked.add(event);
  }
  options.onLeftOut?.(candidates.length - picked.size);
  return candidates.filter((e) => picked.has(e));
}

// Events are immutable once appended, so their prompt line is computed once.
const formatted = new WeakMap<ContextEvent, string>();

/** One line of the prompt's timeline for `event`. */
export function formatEvent(event: ContextEvent): string {
  let line = formatted.get(event);
  if (line === undefined) {
    line = formatLine(event);
    formatted.set(event, line);
  }
  return line;
}

function formatLine(event: ContextEvent): string {
  const time = new Date(event.timestamp).toISOString().slice(0, 16).replace("T", " ");
  const who = event.role === "agent" ? "you" : event.source;
  const text = event.role === "cold_storage"
    ? [event.input, event.response].filter(Boolean).join(" / ")
    : event.role === "agent"
    ? event.response ?? ""
    : event.input ?? "";
  return `[${time}] ${who}: ${text}`;
}

/**
 * One change to the window, as the journal records it. A record's `seq` grows by one per record
 * and carries on across snapshots, so a replay skips what a snapshot already holds.
 * - `add`: an event entered the window (appended, or put back at its time); placed by timestamp.
 * - `archive`: these events are being written to documents (recorded, durably, before any
 *   document exists); the archive stays open until `remove` closes it.
 * - `remove`: these events left the window (archived or dropped).
 */
export type ContextChange =
  | { op: "add"; event: ContextEvent }
  | { op: "archive" | "remove"; ids: string[] };

/** A change as it is written to the journal, numbered. */
export type ContextRecord = ContextChange & { seq: number };

/** The working window as it is persisted. */
export interface ContextSnapshot {
  version: 1;
  events: ContextEvent[];
  /** The last journal record this snapshot includes; 0 or absent before any. */
  seq?: number;
  /** Events whose archive was under way when the snapshot was taken. */
  archiving?: string[];
}

/** What a store hands back at start: the last snapshot, then the journal written after it. */
export interface StoredContext {
  snapshot?: ContextSnapshot;
  /** Journal records in the order they were written (a torn last line already left out). */
  journal: ContextRecord[];
}

/**
 * Persistence of the working window: a snapshot, and optionally a journal of the changes since.
 * `load` resolves `{ journal: [] }` when nothing was saved (a corrupt file is moved aside and
 * reported by the implementation). `save` replaces the snapshot atomically and may then drop
 * the journal records up to `snapshot.seq`. `append`, when present, resolves only once the
 * records are durable (fsynced); a store without it keeps snapshots only (evaluation, tests).
 * All three reject on storage failure; the caller never runs two of them at once.
 */
export interface ContextStore {
  load(): Promise<StoredContext>;
  save(snapshot: ContextSnapshot): Promise<void>;
  append?(records: readonly ContextRecord[]): Promise<void>;
}

/** The window a store's snapshot and journal describe, and the archives a crash interrupted. */
export interface ReplayedContext {
  /** The events, oldest first. */
  events: ContextEvent[];
  /** Ids of events still in the window whose archive was begun and never closed. */
  archiving: Set<string>;
  /** The last record seen. */
  seq: number;
}

/**
 * Apply the journal to the snapshot. Records the snapshot already holds (`seq` up to its own)
 * are skipped, and every record is idempotent (an `add` of an id already present changes
 * nothing), so replaying after a crash at any point gives the window as it was.
 */
export function replayContext(stored: StoredContext): ReplayedContext {
  const base = stored.snapshot;
  const after = base?.seq ?? 0;
  const byId = new Map((base?.events ?? []).map((e) => [e.id, e]));
  const archiving = new Set(base?.archiving ?? []);
  let seq = after;
  for (const record of stored.journal) {
    if (record.seq <= after) continue;
    seq = Math.max(seq, record.seq);
    if (record.op === "add") {
      if (!byId.has(record.event.id)) byId.set(record.event.id, record.event);
      continue;
    }
    for (const id of record.ids) {
      if (record.op === "archive") archiving.add(id);
      else {
        archiving.delete(id);
        byId.delete(id);
      }
    }
  }
  for (const id of archiving) if (!byId.has(id)) archiving.delete(id);
  // Stable: events with equal times keep the order they entered in.
  const events = [...byId.values()].sort((a, b) => a.timestamp - b.timestamp);
  return { events, archiving, seq };
}
