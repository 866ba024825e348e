/** The ConfigRegistry's storage: `<home>/config.db`, table `config` plus `config_<plugin>`. */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { ConfigRow, ConfigStore } from "../core/mod.ts";
import { openDatabase } from "./sqlite.ts";

/** Options of SqliteConfigStore. */
export interface SqliteConfigStoreOptions {
  /** The database file, normally `homePaths(home).configDb`, or ":memory:". */
  path: string;
  /** Lock wait for concurrent writers (the CLI and the daemon). Default 5000 ms. */
  busyTimeoutMs?: number;
}

/** Ordered schema migrations of config.db; append, never edit. */
export const configMigrations: readonly string[] = [
  `create table config (
    key text primary key,
    value text not null,
    updated_at integer not null
  )`,
];

// Same shape as migration 1's `config`; plugin tables are made on first write.
const tableDdl = (table: string) =>
  `create table if not exists "${table}" (
    key text primary key,
    value text not null,
    updated_at integer not null
  )`;

const TABLE_NAME = /^config(_[a-z0-9_]{1,64})?$/;

/**
 * ConfigStore on node:sqlite. `list` returns rows in first-insert order (a `set` on an
 * existing key keeps its place). Methods throw on storage failure; the constructor throws
 * DatabaseError for a corrupt or unreadable file, which it leaves untouched.
 */
export class SqliteConfigStore implements ConfigStore {
  #db: DatabaseSync;
  #known = new Set<string>();
  #statements = new Map<string, StatementSync>();

  constructor(options: SqliteConfigStoreOptions) {
    this.#db = openDatabase(options.path, {
      migrations: configMigrations,
      busyTimeoutMs: options.busyTimeoutMs,
      quickCheck: true,
    });
  }

  /** The row of `key` in `table`, or undefined. */
  get(table: string, key: string): ConfigRow | undefined {
    if (!this.#exists(table)) return undefined;
    const row = this.#statement(`select key, value, updated_at from "${table}" where key = ?`)
      .get(key);
    return row ? toConfigRow(row) : undefined;
  }

  /** Insert or replace the value of `key` in one statement, creating a plugin table on first use. */
  set(table: string, key: string, value: string, updatedAt: number): void {
    if (!this.#exists(table)) {
      this.#db.exec(tableDdl(table));
      this.#known.add(table);
    }
    this.#statement(
      `insert into "${table}" (key, value, updated_at) values (?, ?, ?)
       on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
    ).run(key, value, BigInt(Math.trunc(updatedAt)));
  }

  /** Remove `key` from `table`; absent keys and tables are fine. */
  delete(table: string, key: string): void {
    if (!this.#exists(table)) return;
    this.#statement(`delete from "${table}" where key = ?`).run(key);
  }

  /** Rows of `table` whose key starts with `prefix`, in first-insert order. */
  list(table: string, prefix = ""): ConfigRow[] {
    if (!this.#exists(table)) return [];
    return this.#statement(
      `select key, value, updated_at from "${table}"
       where substr(key, 1, length(?1)) = ?1 order by rowid`,
    ).all(prefix).map(toConfigRow);
  }

  /** Names of the config tables present: `config` and every `config_<plugin>`. */
  tables(): string[] {
    return this.#statement(
      `select name from sqlite_master where type = 'table'
       and (name = 'config' or name like 'config\\_%' escape '\\') order by name`,
    ).all().map((row) => String(row.name)).filter((name) => TABLE_NAME.test(name));
  }

  /** Close the database; the store is unusable afterwards. Safe to call twice. */
  close(): void {
    if (!this.#db.isOpen) return;
    this.#statements.clear();
    this.#db.close();
  }

  #exists(table: string): boolean {
    if (!TABLE_NAME.test(table)) {
      throw new TypeError(
        `Invalid config table name "${table}": expected "config" or "config_<name>" ` +
          `with lowercase letters, digits and "_"`,
      );
    }
    if (this.#known.has(table)) return true;
    // Another connection (the CLI) may have created it since we last looked.
    const found = this.#statement(
      "select 1 as found from sqlite_master where type = 'table' and name = ?",
    ).get(table);
    if (found) this.#known.add(table);
    return found !== undefined;
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}

function toConfigRow(row: Record<string, unknown>): ConfigRow {
  return { key: String(row.key), value: String(row.value), updatedAt: Number(row.updated_at) };
}
