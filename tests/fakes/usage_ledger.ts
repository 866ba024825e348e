/** A UsageLedger in a Map, for tests of the manager's usage records, prices and caps. */
import {
  type CauseTotals,
  emptyTotals,
  type UsageLedger,
  type UsageRecord,
  type UsageTotals,
} from "../../core/mod.ts";

/** A ledger in memory: what ProviderManager tests record into and read caps from. */
export class MemoryUsageLedger implements UsageLedger {
  #rows = new Map<string, CauseTotals>();

  /** Add one call. */
  record(entry: UsageRecord): void {
    const key = `${entry.day}\u0000${entry.source}\u0000${entry.cause}`;
    const row = this.#rows.get(key) ??
      { ...emptyTotals(entry.source, entry.day), cause: entry.cause };
    addTo(row, entry);
    this.#rows.set(key, row);
  }

  /** Totals of one source on one day. */
  totals(source: string, day: string): UsageTotals {
    return sum(emptyTotals(source, day), this.#of((r) => r.day === day && r.source === source));
  }

  /** Tokens of one cause on one day. */
  causeTokens(cause: string, day: string): number {
    return this.#of((r) => r.day === day && r.cause === cause)
      .reduce((n, r) => n + r.promptTokens + r.completionTokens, 0);
  }

  /** Totals within the days, by day then source. */
  range(fromDay: string, toDay: string): UsageTotals[] {
    const bySource = new Map<string, UsageTotals>();
    for (const row of this.causes(fromDay, toDay)) {
      const key = `${row.day}\u0000${row.source}`;
      bySource.set(key, sum(bySource.get(key) ?? emptyTotals(row.source, row.day), [row]));
    }
    return [...bySource.values()];
  }

  /** Totals within the days, by day, source and cause. */
  causes(fromDay: string, toDay: string): CauseTotals[] {
    return this.#of((r) => r.day >= fromDay && r.day <= toDay).map((r) => ({ ...r }))
      .sort((a, b) =>
        a.day.localeCompare(b.day) || a.source.localeCompare(b.source) ||
        a.cause.localeCompare(b.cause)
      );
  }

  #of(match: (row: CauseTotals) => boolean): CauseTotals[] {
    return [...this.#rows.values()].filter(match);
  }
}

function addTo(row: UsageTotals, entry: UsageRecord): void {
  const { usage } = entry;
  row.promptTokens += usage.promptTokens;
  row.completionTokens += usage.completionTokens;
  row.cachedTokens += usage.cachedTokens ?? 0;
  if (usage.estimated) row.estimatedTokens += usage.promptTokens + usage.completionTokens;
  row.calls++;
  if (entry.cost !== undefined) row.cost = (row.cost ?? 0) + entry.cost;
}

function sum(into: UsageTotals, rows: readonly UsageTotals[]): UsageTotals {
  const out = { ...into };
  for (const row of rows) {
    out.promptTokens += row.promptTokens;
    out.completionTokens += row.completionTokens;
    out.cachedTokens += row.cachedTokens;
    out.estimatedTokens += row.estimatedTokens;
    out.calls += row.calls;
    if (row.cost !== undefined) out.cost = (out.cost ?? 0) + row.cost;
  }
  return out;
}
