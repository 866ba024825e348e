/**
 * Token usage per source, per cause and per day, and its money where a source has prices: the
 * port the ProviderManager records into (memory/ stores it in usage.db). A cause is what made
 * the call: the input's source for a turn (`web`, `cli`, `timer`, `mcp`, a chat plugin), or
 * `heartbeat` (the memory loops), `resident`, `child`, `triage`.
 */
import type { Usage } from "./provider.ts";

/** One call's tokens as recorded: the provider's usage, or an estimate marked as one. */
export interface RecordedUsage extends Usage {
  /** Counted by the budget's own token counter because the server reported none. */
  estimated?: boolean;
}

/** One call as the ledger is given it. */
export interface UsageRecord {
  source: string;
  /** Local calendar day, `YYYY-MM-DD`. */
  day: string;
  cause: string;
  usage: RecordedUsage;
  /** Money at the source's prices when it has any; absent when it is not priced. */
  cost?: number;
}

/** Totals of one source (and, in CauseTotals, one cause) on one day. */
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
  /** Money of the priced calls among them; absent when none was priced. */
  cost?: number;
}

/** Totals of one cause at one source on one day. */
export interface CauseTotals extends UsageTotals {
  cause: string;
}

/**
 * Where usage is kept. `record` adds one call; reads return zeros for a day without calls.
 * Methods may throw on storage failure; the ProviderManager logs that and carries on.
 */
export interface UsageLedger {
  record(entry: UsageRecord): void;
  /** Totals of `source` on `day`. */
  totals(source: string, day: string): UsageTotals;
  /** Prompt + completion tokens of `cause` on `day`, over every source. */
  causeTokens(cause: string, day: string): number;
  /** Every source's totals from `fromDay` to `toDay` inclusive, by day then source. */
  range(fromDay: string, toDay: string): UsageTotals[];
  /** Totals by day, source and cause from `fromDay` to `toDay` inclusive, in that order. */
  causes(fromDay: string, toDay: string): CauseTotals[];
}

/** The local calendar day of `ms` as `YYYY-MM-DD`. */
export function dayOf(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The last `days` days of `ledger` up to `now` (today included), oldest day first. */
export function lastDaysOfUsage(
  ledger: Pick<UsageLedger, "range">,
  now: number,
  days = 7,
): UsageTotals[] {
  return ledger.range(dayOf(now - (days - 1) * 86_400_000), dayOf(now));
}

/** The last seven days of `ledger` up to `now` (today included), oldest day first. */
export function lastWeekOfUsage(ledger: Pick<UsageLedger, "range">, now: number): UsageTotals[] {
  return lastDaysOfUsage(ledger, now, 7);
}

/** Money of `usage` at prices per million input and output tokens; undefined when unpriced. */
export function usageCost(
  usage: Usage,
  prices: { input?: number; output?: number },
): number | undefined {
  const input = prices.input ?? 0;
  const output = prices.output ?? 0;
  if (input <= 0 && output <= 0) return undefined;
  return (usage.promptTokens * input + usage.completionTokens * output) / 1_000_000;
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
