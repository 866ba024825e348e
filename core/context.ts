/** The working window: the chronological list of recent events the prompt is built from. */
import type { TokenCounter } from "./budget.ts";
import type { StoredVector } from "./embedding.ts";

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
  /** Tool outputs of an agent turn, for relevance scoring (never shown in the timeline). */
  tools?: { name: string; output: string }[];
  /** Ids of the turns (inputs) this event came from; documents keep them to map back. */
  turnIds?: string[];
  timestamp: number;
  /** The event's vector and the space it lives in, once computed. */
  vector?: StoredVector;
}

/** Options of ContextWindow.timeline. */
export interface TimelineOptions {
  /** Id of an event to leave out. */
  exclude?: string;
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
  size(): number;
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

/** The newest events of `events` that fit in `budgetTokens`, returned oldest first. */
export function budgetedTimeline(
  events: readonly ContextEvent[],
  budgetTokens: number,
  count: TokenCounter,
  options: TimelineOptions = {},
): ContextEvent[] {
  const picked: ContextEvent[] = [];
  let used = 0;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.id === options.exclude) continue;
    const cost = count(formatEvent(event));
    if (used + cost > budgetTokens) break;
    used += cost;
    picked.push(event);
  }
  return picked.reverse();
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

/** The working window as it is persisted. */
export interface ContextSnapshot {
  version: 1;
  events: ContextEvent[];
}

/**
 * Persistence of the working window. `load` resolves undefined when nothing was saved (a
 * corrupt file is moved aside and reported by the implementation); `save` is atomic.
 */
export interface ContextStore {
  load(): Promise<ContextSnapshot | undefined>;
  save(snapshot: ContextSnapshot): Promise<void>;
}
