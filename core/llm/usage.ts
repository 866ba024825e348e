/** Token usage per source per day: the port the ProviderManager records into (memory/ stores it). */
import type { Usage } from "./provider.ts";

/** One call's tokens as recorded: the provider's usage, or an estimate marked as one. */
export interface RecordedUsage extends Usage {
  /** Counted by the budget's own token counter because the server reported none. */
  estimated?: boolean;
}

/** One source's totals on one day. */
export interface UsageTotals {
  source: string;
  /** Local calendar day, `YYYY-MM-DD`. */
  day: string;
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from the provider's cache, where it reports them. */
  cachedTokens: number;
  /** How many of the prompt + completion tokens are estimates (no usage from the server). */
  estimatedTokens: number;
  calls: number;
}

/**
 * Where usage is kept. `record` adds one call; reads return zeros for a day without calls.
 * Methods may throw on storage failure; the ProviderManager logs that and carries on.
 */
export interface UsageLedger {
  record(source: string, day: string, usage: RecordedUsage): void;
  /** Totals of `source` on `day`. */
  totals(source: string, day: string): UsageTotals;
  /** Every source's totals from `fromDay` to `toDay` inclusive, by day then source. */
  range(fromDay: string, toDay: string): UsageTotals[];
}

/** The local calendar day of `ms` as `YYYY-MM-DD`. */
export function dayOf(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The last seven days of `ledger` up to `now` (today included), oldest day first. */
export function lastWeekOfUsage(ledger: Pick<UsageLedger, "range">, now: number): UsageTotals[] {
  return ledger.range(dayOf(now - 6 * 86_400_000), dayOf(now));
}

/** The totals of a source on a day without calls. */
export function emptyTotals(source: string, day: string): UsageTotals {
  return {
    source,
    day,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    estimatedTokens: 0,
    calls: 0,
  };
}
