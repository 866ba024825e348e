/**
 * Exchanges of the working window: an input, the reply to it and the tool outputs the reply
 * carries are kept or archived together (ARCHITECTURE.md "Context Pruning"), so a document
 * never holds half a conversation turn.
 */
import { type ContextEvent, exchangeOf } from "./context.ts";

/** The events of one exchange, in timeline order. */
export type Exchange = ContextEvent[];

/** The exchanges of `events` (oldest first), ordered by their first event. */
export function groupExchanges(events: readonly ContextEvent[]): Exchange[] {
  const groups = new Map<string, Exchange>();
  for (const event of events) {
    const key = exchangeOf(event);
    const group = groups.get(key);
    if (group) group.push(event);
    else groups.set(key, [event]);
  }
  return [...groups.values()];
}

/** How a prune splits the window. */
export interface PrunePlan {
  /** Exchanges touching the newest `keepRecent` events: never evicted. */
  recent: Exchange[];
  /** The other exchanges, the candidates for eviction. */
  older: Exchange[];
}

/** Split `events` into the protected recent exchanges and the older ones. */
export function planPrune(events: readonly ContextEvent[], keepRecent: number): PrunePlan {
  const newest = new Set(events.slice(Math.max(0, events.length - keepRecent)));
  const recent: Exchange[] = [];
  const older: Exchange[] = [];
  for (const exchange of groupExchanges(events)) {
    (exchange.some((e) => newest.has(e)) ? recent : older).push(exchange);
  }
  return { recent, older };
}

/**
 * The `slots` best of `older`: an exchange scores the best score of its scored events (an
 * answer that matches keeps its question, and the other way round); one with no scored event
 * (all NoMemory) scores lowest. Ties keep the newer exchange.
 */
export function bestExchanges(
  older: readonly Exchange[],
  scores: ReadonlyMap<ContextEvent, number>,
  slots: number,
): Set<Exchange> {
  const ranked = older.map((exchange, i) => ({
    exchange,
    i,
    score: Math.max(...exchange.map((e) => scores.get(e) ?? -Infinity)),
  })).sort((a, b) => b.score - a.score || b.i - a.i);
  return new Set(ranked.slice(0, Math.max(0, slots)).map((r) => r.exchange));
}
