/** A UsageLedger in a Map, for tests of the manager's usage records and daily caps. */
import {
  emptyTotals,
  type RecordedUsage,
  type UsageLedger,
  type UsageTotals,
} from "../../core/mod.ts";

/** A ledger in memory: what ProviderManager tests record into and read caps from. */
export class MemoryUsageLedger implements UsageLedger {
  #rows = new Map<string, UsageTotals>();

  /** Add one call. */
  record(source: string, day: string, usage: RecordedUsage): void {
    const row = this.totals(source, day);
    row.promptTokens += usage.promptTokens;
    row.completionTokens += usage.completionTokens;
    row.cachedTokens += usage.cachedTokens ?? 0;
    if (usage.estimated) row.estimatedTokens += usage.promptTokens + usage.completionTokens;
    row.calls++;
    this.#rows.set(`${day}\u0000${source}`, row);
  }

  /** Totals of one source on one day. */
  totals(source: string, day: string): UsageTotals {
    return this.#rows.get(`${day}\u0000${source}`) ??
      { ...emptyTotals(source, day) };
  }

  /** Totals within the days, by day then source. */
  range(fromDay: string, toDay: string): UsageTotals[] {
    return [...this.#rows.values()].filter((r) => r.day >= fromDay && r.day <= toDay)
      .sort((a, b) => a.day.localeCompare(b.day) || a.source.localeCompare(b.source));
  }
}
