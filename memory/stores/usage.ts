/** Token usage per LLM source per day in SQLite (`<home>/usage.db`), behind core's UsageLedger. */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import {
  emptyTotals,
  type RecordedUsage,
  type UsageLedger,
  type UsageTotals,
} from "../../core/mod.ts";
import { openDatabase } from "../sqlite.ts";

/** Ordered schema migrations of usage.db; append, never edit. */
export const usageMigrations: readonly string[] = [
  `create table usage (
    day text not null,
    source text not null,
    prompt_tokens integer not null default 0,
    completion_tokens integer not null default 0,
    cached_tokens integer not null default 0,
    calls integer not null default 0,
    primary key (day, source)
  ) without rowid`,
  // Tokens counted by estimate (failed and stopped calls, servers that report no usage).
  `alter table usage add column estimated_tokens integer not null default 0`,
];

interface UsageRow {
  day: string;
  source: string;
  "prompt_tokens": number;
  "completion_tokens": number;
  "cached_tokens": number;
  "estimated_tokens": number;
  calls: number;
}

/** UsageLedger on node:sqlite; methods throw on storage failure. */
export class SqliteUsageStore implements UsageLedger {
  #db: DatabaseSync;
  #add: StatementSync;
  #one: StatementSync;
  #range: StatementSync;

  constructor(options: { path: string }) {
    this.#db = openDatabase(options.path, { migrations: usageMigrations });
    this.#add = this.#db.prepare(
      `insert into usage (day, source, prompt_tokens, completion_tokens, cached_tokens,
         estimated_tokens, calls)
       values (?, ?, ?, ?, ?, ?, 1)
       on conflict (day, source) do update set
         prompt_tokens = prompt_tokens + excluded.prompt_tokens,
         completion_tokens = completion_tokens + excluded.completion_tokens,
         cached_tokens = cached_tokens + excluded.cached_tokens,
         estimated_tokens = estimated_tokens + excluded.estimated_tokens,
         calls = calls + 1`,
    );
    this.#one = this.#db.prepare("select * from usage where day = ? and source = ?");
    this.#range = this.#db.prepare(
      "select * from usage where day >= ? and day <= ? order by day, source",
    );
  }

  /** Add one call's tokens. */
  record(source: string, day: string, usage: RecordedUsage): void {
    const estimated = usage.estimated ? usage.promptTokens + usage.completionTokens : 0;
    this.#add.run(
      day,
      source,
      usage.promptTokens,
      usage.completionTokens,
      usage.cachedTokens ?? 0,
      estimated,
    );
  }

  /** Totals of `source` on `day` (zeros when it made no call). */
  totals(source: string, day: string): UsageTotals {
    const row = this.#one.get(day, source) as UsageRow | undefined;
    return row ? toTotals(row) : emptyTotals(source, day);
  }

  /** Every source's totals between the days, inclusive. */
  range(fromDay: string, toDay: string): UsageTotals[] {
    return (this.#range.all(fromDay, toDay) as unknown as UsageRow[]).map(toTotals);
  }

  /** Close the database. */
  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  /** close(), for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }
}

function toTotals(row: UsageRow): UsageTotals {
  return {
    source: row.source,
    day: row.day,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    cachedTokens: row.cached_tokens,
    estimatedTokens: row.estimated_tokens,
    calls: row.calls,
  };
}
