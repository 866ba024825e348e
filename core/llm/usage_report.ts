/**
 * What `homeagent usage`, `status` and the web page show of the usage ledger: totals per day
 * (every day of the range, so a chart has no gaps), per source and per cause, in tokens and in
 * money where a source is priced.
 */
import { type CauseTotals, dayOf, type UsageLedger } from "./usage.ts";

/** Tokens and money of one group (a day, a source, a cause). */
export interface UsageSum {
  promptTokens: number;
  completionTokens: number;
  /** How many of the tokens are estimates (no usage from the server). */
  estimatedTokens: number;
  calls: number;
  /** Money of the priced calls; absent when none was priced. */
  cost?: number;
}

/** The usage of a range of days. */
export interface UsageReport {
  from: string;
  to: string;
  currency: string;
  /** Every day of the range, oldest first, zeros included. */
  days: ({ day: string } & UsageSum)[];
  /** By source and by cause over the range, most tokens first. */
  sources: ({ source: string } & UsageSum)[];
  causes: ({ cause: string } & UsageSum)[];
  total: UsageSum;
}

/** Options of usageReport. */
export interface UsageReportOptions {
  now: number;
  /** Days up to and including today; default 7. */
  days?: number;
  currency?: string;
}

/** The report of the last `days` days of `ledger`. Throws what the ledger throws. */
export function usageReport(
  ledger: Pick<UsageLedger, "causes">,
  options: UsageReportOptions,
): UsageReport {
  const count = Math.max(1, Math.floor(options.days ?? 7));
  const dayList = Array.from(
    { length: count },
    (_, i) => dayOf(options.now - (count - 1 - i) * 86_400_000),
  );
  const rows = ledger.causes(dayList[0]!, dayList.at(-1)!);
  const byDay = group(rows, (r) => r.day);
  return {
    from: dayList[0]!,
    to: dayList.at(-1)!,
    currency: options.currency ?? "USD",
    days: dayList.map((day) => ({ day, ...(byDay.get(day) ?? zero()) })),
    sources: ranked(group(rows, (r) => r.source)).map(([source, sum]) => ({ source, ...sum })),
    causes: ranked(group(rows, (r) => r.cause)).map(([cause, sum]) => ({ cause, ...sum })),
    total: rows.reduce((sum, row) => add(sum, row), zero()),
  };
}

/** The report as lines of text, for `homeagent usage`. */
export function formatUsageReport(report: UsageReport): string[] {
  const n = (x: number) => x.toLocaleString("en-US");
  const money = (sum: UsageSum) =>
    sum.cost === undefined ? "" : `  ${report.currency} ${sum.cost.toFixed(sum.cost < 1 ? 4 : 2)}`;
  const line = (label: string, sum: UsageSum) =>
    `  ${label.padEnd(16)} ${n(sum.promptTokens).padStart(11)} in ${
      n(sum.completionTokens).padStart(9)
    } out ${n(sum.calls).padStart(6)} calls${money(sum)}`;
  if (report.total.calls === 0) {
    return [`No LLM calls from ${report.from} to ${report.to}.`];
  }
  const estimated = report.total.estimatedTokens > 0
    ? [`(${n(report.total.estimatedTokens)} of the tokens are estimates: no usage from the server)`]
    : [];
  return [
    `LLM usage from ${report.from} to ${report.to}:`,
    line("total", report.total),
    ...estimated,
    "By source:",
    ...report.sources.map((s) => line(s.source, s)),
    "By cause:",
    ...report.causes.map((c) => line(c.cause, c)),
    "By day:",
    ...report.days.filter((d) => d.calls > 0).map((d) => line(d.day, d)),
  ];
}

function zero(): UsageSum {
  return { promptTokens: 0, completionTokens: 0, estimatedTokens: 0, calls: 0 };
}

function add(sum: UsageSum, row: UsageSum): UsageSum {
  const out: UsageSum = {
    promptTokens: sum.promptTokens + row.promptTokens,
    completionTokens: sum.completionTokens + row.completionTokens,
    estimatedTokens: sum.estimatedTokens + row.estimatedTokens,
    calls: sum.calls + row.calls,
  };
  if (sum.cost !== undefined || row.cost !== undefined) {
    out.cost = (sum.cost ?? 0) + (row.cost ?? 0);
  }
  return out;
}

function group(rows: readonly CauseTotals[], key: (row: CauseTotals) => string) {
  const groups = new Map<string, UsageSum>();
  for (const row of rows) groups.set(key(row), add(groups.get(key(row)) ?? zero(), row));
  return groups;
}

function ranked(groups: Map<string, UsageSum>): [string, UsageSum][] {
  const tokens = (s: UsageSum) => s.promptTokens + s.completionTokens;
  return [...groups].sort((a, b) => tokens(b[1]) - tokens(a[1]) || a[0].localeCompare(b[0]));
}
