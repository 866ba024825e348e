/**
 * Opening SQLite databases one way for every store: WAL, a busy timeout, an optional quick
 * integrity check, and ordered migrations tracked in `pragma user_version`.
 */
import { DatabaseSync } from "node:sqlite";
import { errorMessage, HomeAgentError } from "../core/mod.ts";
import { keepPrivate } from "./home.ts";

/** Why a database could not be opened or migrated. */
export type DatabaseFailure = "db_open" | "db_corrupt" | "db_too_new" | "db_migration";

/** A database file could not be opened, checked or migrated; `path` names the file. */
export class DatabaseError extends HomeAgentError {
  readonly path: string;
  constructor(path: string, code: DatabaseFailure, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.path = path;
  }
}

/** How openDatabase prepares a database. */
export interface OpenDatabaseOptions {
  /** SQL scripts in order; script `i` moves the schema from version `i` to `i + 1`. Never edit a shipped one. */
  migrations: readonly string[];
  /** How long a writer waits for another connection's lock. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** Run `pragma quick_check` on open (cost grows with the file: meant for small databases). */
  quickCheck?: boolean;
}

// SQLITE_CORRUPT and SQLITE_NOTADB: the file is there but is not a healthy database.
const CORRUPT_CODES = new Set([11, 26]);

/**
 * Open (or create) the database at `path` (a file, or ":memory:") and bring its schema up to
 * date. Throws DatabaseError naming the file; a corrupt file is left untouched, never reset.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions): DatabaseSync {
  let db: DatabaseSync;
  let created: boolean;
  try {
    created = createPrivate(path);
    db = new DatabaseSync(path);
  } catch (error) {
    throw openFailure(path, error);
  }
  try {
    configure(db, path, options, created);
    migrate(db, path, options.migrations);
    if (created) durable(db, path);
    if (path !== ":memory:") { for (const end of ["-wal", "-shm"]) keepPrivate(path + end, 0o600); }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Databases hold secrets (config.db: the web token and API keys), so a new one is created 0600
 * whatever the umask, and an existing one is tightened to 0600. SQLite gives its -wal and -shm
 * files the database file's mode.
 */
function createPrivate(path: string): boolean {
  if (path === ":memory:" || path.startsWith("file:")) return false;
  try {
    Deno.openSync(path, { write: true, createNew: true, mode: 0o600 }).close();
    return true;
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    keepPrivate(path, 0o600);
    return false;
  }
}

/** Run `fn` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws. */
export function withTransaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec("begin immediate");
  try {
    const result = fn();
    db.exec("commit");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("rollback");
    throw error;
  }
}

/** What checkpoint() did; `busy` when a reader kept it from emptying the WAL. */
export interface CheckpointResult {
  vacuumed: boolean;
  busy: boolean;
  /** WAL frames left (0 once truncated). */
  walFrames: number;
}

/**
 * After an erase: with `vacuum`, rewrite the file without free pages (data deleted before
 * secure_delete was on leaves no trace either), where this process may; then copy the WAL into
 * the file and truncate it, so the old pages it held are gone. A reader in another connection can keep the WAL
 * (`busy`); the next checkpoint finishes the job.
 */
export function checkpoint(
  db: DatabaseSync,
  options: { vacuum?: boolean } = {},
): CheckpointResult {
  const vacuumed = options.vacuum === true && vacuum(db);
  const row = db.prepare("pragma wal_checkpoint(truncate)").get() ?? {};
  return {
    vacuumed,
    busy: Number(row.busy ?? 0) !== 0,
    walFrames: Math.max(0, Number(row.log ?? 0)),
  };
}

/**
 * VACUUM; false when this process may not run it: Deno refuses ATTACH (which VACUUM uses)
 * without full permissions, as the daemon runs. Deletes are still zeroed (secure_delete).
 */
function vacuum(db: DatabaseSync): boolean {
  try {
    db.exec("vacuum");
    return true;
  } catch (error) {
    if (/attach/i.test(errorMessage(error))) return false;
    throw error;
  }
}

function configure(
  db: DatabaseSync,
  path: string,
  options: OpenDatabaseOptions,
  created: boolean,
): void {
  try {
    db.exec(`pragma busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    // A file created just now holds nothing yet: its switch to WAL (SQLite writes the header
    // through a rollback journal) and its schema need not wait for the disk (durable() below).
    if (created) db.exec("pragma synchronous = off");
    db.prepare("pragma journal_mode = wal").get();
    // Deleted rows are overwritten with zeros, not left in free space: an erased name
    // (memory forget) or an unset API key must not stay readable in the file.
    db.exec("pragma foreign_keys = on; pragma secure_delete = on");
    if (!created) db.exec("pragma synchronous = normal");
    if (options.quickCheck) {
      const rows = db.prepare("pragma quick_check").all();
      const problems = rows.map((row) => String(row.quick_check)).filter((r) => r !== "ok");
      if (problems.length > 0) {
        throw new DatabaseError(
          path,
          "db_corrupt",
          `Cannot open database "${path}": integrity check failed (${
            problems.slice(0, 3).join("; ")
          })`,
        );
      }
    }
  } catch (error) {
    throw openFailure(path, error);
  }
}

/**
 * A new database's schema is in: from here on, `synchronous = normal`, as every database.
 * Until here it was off, so the schema's transaction (the new WAL's first) did not sync the
 * WAL's header and its folder: two fsyncs per database, 8 of a new home's first start, each
 * 0.5-5 ms on a busy disk. It loses nothing: with `normal` no commit waits for the disk
 * either (the WAL is synced at each checkpoint, before its pages reach the file), and a new
 * WAL has no old frames that an unsynced header could mix up. A power cut before the first
 * checkpoint can lose the schema, as it can any transaction since: the next open finds
 * user_version 0 and migrates again.
 */
function durable(db: DatabaseSync, path: string): void {
  try {
    db.exec("pragma synchronous = normal");
  } catch (error) {
    throw openFailure(path, error);
  }
}

function migrate(db: DatabaseSync, path: string, migrations: readonly string[]): void {
  const target = migrations.length;
  if (userVersion(db) === target) return;
  try {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    withTransaction(db, () => {
      const current = userVersion(db);
      if (current > target) {
        throw new DatabaseError(
          path,
          "db_too_new",
          `Cannot open database "${path}": its schema version ${current} is newer than this ` +
            `build knows (${target})`,
        );
      }
      for (let version = current; version < target; version++) {
        db.exec(migrations[version]!);
      }
      db.exec(`pragma user_version = ${target}`);
    });
  } catch (error) {
    if (error instanceof DatabaseError) throw error;
    throw new DatabaseError(
      path,
      "db_migration",
      `Cannot migrate database "${path}" to schema version ${target}: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}

function userVersion(db: DatabaseSync): number {
  return Number(db.prepare("pragma user_version").get()?.user_version ?? 0);
}

function openFailure(path: string, error: unknown): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  const corrupt = typeof errcode === "number" && CORRUPT_CODES.has(errcode);
  return new DatabaseError(
    path,
    corrupt ? "db_corrupt" : "db_open",
    corrupt
      ? `Cannot open database "${path}": the file is corrupt or not a SQLite database ` +
        `(${errorMessage(error)}); move it aside to start fresh`
      : `Cannot open database "${path}": ${errorMessage(error)}`,
    { cause: error },
  );
}
