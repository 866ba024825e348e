/**
 * Token usage per LLM source, cause and day in SQLite (`<home>/usage.db`), behind core's
 * UsageLedger: table `usage` by day and source (what the daily source caps read), table
 * `usage_causes` by day, source and cause (the cause caps and `homeagent usage`), both written
 * in one transaction per call.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import {
  type CauseTotals,
  emptyTotals,
  type UsageLedger,
  type UsageRecord,
  type UsageTotals,
} from "../../core/mod.ts";
import { openDatabase, withTransaction } from "../sqlite.ts";

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
  // Money at the source's prices; null while no call of the row was priced.
  `alter table usage add column cost real`,
  `create table usage_causes (
    day text not null,
    source text not null,
    cause text not null,
    prompt_tokens integer not null default 0,
    completion_tokens integer not null default 0,
    cached_tokens integer not null default 0,
    estimated_tokens integer not null default 0,
    calls integer not null default 0,
    cost real,
    primary key (day, source, cause)
  ) without rowid`,
  // Calls recorded before causes were: one row each, cause "unknown".
  `insert into usage_causes (day, source, cause, prompt_tokens, completion_tokens,
     cached_tokens, estimated_tokens, calls, cost)
   select day, source, 'unknown', prompt_tokens, completion_tokens, cached_tokens,
     estimated_tokens, calls, cost from usage`,
];

const ADD = (table: string, key: string) =>
  `insert into ${table} (${key}, prompt_tokens, completion_tokens, cached_tokens,
     estimated_tokens, calls, cost)
   values (${key.split(",").map(() => "?").join(", ")}, ?, ?, ?, ?, 1, ?)
   on conflict (${key}) do update set
     prompt_tokens = prompt_tokens + excluded.prompt_tokens,
     completion_tokens = completion_tokens + excluded.completion_tokens,
     cached_tokens = cached_tokens + excluded.cached_tokens,
     estimated_tokens = estimated_tokens + excluded.estimated_tokens,
     calls = calls + 1,
     cost = case when excluded.cost is null then cost else coalesce(cost, 0) + excluded.cost end`;

interface UsageRow {
  day: string;
  source: string;
  cause?: string;
  "prompt_tokens": number;
  "completion_tokens": number;
  "cached_tokens": number;
  "estimated_tokens": number;
  calls: number;
  cost: number | null;
}

/** UsageLedger on node:sqlite; methods throw on storage failure. */
export class SqliteUsageStore implements UsageLedger {
  #db: DatabaseSync;
  #add: StatementSync;
  #addCause: StatementSync;
  #one: StatementSync;
  #cause: StatementSync;
  #range: StatementSync;
  #causes: StatementSync;

  constructor(options: { path: string }) {
    this.#db = openDatabase(options.path, { migrations: usageMigrations });
    this.#add = this.#db.prepare(ADD("usage", "day, source"));
    this.#addCause = this.#db.prepare(ADD("usage_causes", "day, source, cause"));
    this.#one = this.#db.prepare("select * from usage where day = ? and source = ?");
    this.#cause = this.#db.prepare(
      `select coalesce(sum(prompt_tokens + completion_tokens), 0) as tokens from usage_causes
       where day = ? and cause = ?`,
    );
    this.#range = this.#db.prepare(
      "select * from usage where day >= ? and day <= ? order by day, source",
    );
    this.#causes = this.#db.prepare(
      "select * from usage_causes where day >= ? and day <= ? order by day, source, cause",
    );
  }

  /** Add one call's tokens (and cost) to its source's and its cause's rows. */
  record(entry: UsageRecord): void {
    const { usage } = entry;
    const estimated = usage.estimated ? usage.promptTokens + usage.completionTokens : 0;
    const values = [
      usage.promptTokens,
      usage.completionTokens,
      usage.cachedTokens ?? 0,
      estimated,
      entry.cost ?? null,
    ] as const;
    withTransaction(this.#db, () => {
      this.#add.run(entry.day, entry.source, ...values);
      this.#addCause.run(entry.day, entry.source, entry.cause, ...values);
    });
  }

  /** Totals of `source` on `day` (zeros when it made no call). */
  totals(source: string, day: string): UsageTotals {
    const row = this.#one.get(day, source) as UsageRow | undefined;
    return row ? toTotals(row) : emptyTotals(source, day);
  }

  /** Tokens of `cause` on `day`, every source. */
  causeTokens(cause: string, day: string): number {
    return Number((this.#cause.get(day, cause) as { tokens: number }).tokens);
  }

  /** Every source's totals between the days, inclusive. */
  range(fromDay: string, toDay: string): UsageTotals[] {
    return (this.#range.all(fromDay, toDay) as unknown as UsageRow[]).map(toTotals);
  }

  /** Totals by day, source and cause between the days, inclusive. */
  causes(fromDay: string, toDay: string): CauseTotals[] {
    return (this.#causes.all(fromDay, toDay) as unknown as UsageRow[]).map((row) => ({
      ...toTotals(row),
      cause: row.cause ?? "unknown",
    }));
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
    ...(row.cost !== null ? { cost: row.cost } : {}),
  };
}
