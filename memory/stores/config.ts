/** The ConfigRegistry's storage: `<home>/config.db`, table `config` plus `config_<plugin>`. */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import {
  type Clock,
  ConfigRegistry,
  type ConfigRow,
  type ConfigStore,
  type Logger,
} from "../../core/mod.ts";
import { openDatabase } from "../sqlite.ts";

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
  // Rows per table, read once and kept until this or another connection writes: the kernel
  // reads settings on every turn, and SQLite's data_version tells us when another process
  // (the CLI's `config set`) committed.
  #cache = new Map<string, { rows: ConfigRow[]; byKey: Map<string, ConfigRow> }>();
  #dataVersion = -1;

  constructor(options: SqliteConfigStoreOptions) {
    this.#db = openDatabase(options.path, {
      migrations: configMigrations,
      busyTimeoutMs: options.busyTimeoutMs,
      quickCheck: true,
    });
  }

  /** The row of `key` in `table`, or undefined. */
  get(table: string, key: string): ConfigRow | undefined {
    return this.#rows(table)?.byKey.get(key);
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
    this.#cache.delete(table);
  }

  /** Remove `key` from `table`; absent keys and tables are fine. */
  delete(table: string, key: string): void {
    if (!this.#exists(table)) return;
    this.#statement(`delete from "${table}" where key = ?`).run(key);
    this.#cache.delete(table);
  }

  /** Rows of `table` whose key starts with `prefix`, in first-insert order. */
  list(table: string, prefix = ""): ConfigRow[] {
    const rows = this.#rows(table)?.rows ?? [];
    return prefix === "" ? [...rows] : rows.filter((row) => row.key.startsWith(prefix));
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

  /** close(), for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }

  /** The cached rows of `table` (undefined when it does not exist), re-read after any write. */
  #rows(table: string): { rows: ConfigRow[]; byKey: Map<string, ConfigRow> } | undefined {
    const version = Number(this.#statement("pragma data_version").get()?.data_version);
    if (version !== this.#dataVersion) {
      this.#cache.clear();
      this.#dataVersion = version;
    }
    let cached = this.#cache.get(table);
    if (!cached) {
      if (!this.#exists(table)) return undefined;
      const rows = this.#statement(`select key, value, updated_at from "${table}" order by rowid`)
        .all().map(toConfigRow);
      cached = { rows, byKey: new Map(rows.map((row) => [row.key, row])) };
      this.#cache.set(table, cached);
    }
    return cached;
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

/** Options of openHomeConfig. */
export interface OpenHomeConfigOptions {
  clock: Clock;
  logger: Logger;
  /** Read once for the HOMEAGENT_LLM_* shortcut. */
  env?: Record<string, string | undefined>;
  /** How the owner runs the command line, named in hints. */
  command?: string;
  /** Each module's key definitions (core, memory, plugins), applied in order. */
  register: readonly ((registry: ConfigRegistry) => void)[];
}

/** A home's ConfigRegistry over its config.db; disposing closes the database. */
export interface HomeConfig extends Disposable {
  registry: ConfigRegistry;
  store: SqliteConfigStore;
}

/** Open `<home>/config.db` as a ConfigRegistry with every module's keys defined. */
export function openHomeConfig(path: string, options: OpenHomeConfigOptions): HomeConfig {
  const store = new SqliteConfigStore({ path });
  try {
    const registry = new ConfigRegistry({
      store,
      clock: options.clock,
      logger: options.logger,
      env: options.env,
      command: options.command,
    });
    for (const register of options.register) register(registry);
    return { registry, store, [Symbol.dispose]: () => store.close() };
  } catch (error) {
    store.close();
    throw error;
  }
}
