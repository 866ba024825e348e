/**
 * The document index sidecar (memory/docs/index.db): one row per document with its counters,
 * its vector, its analyzed words and its body (content, tags, entities), so start-up loads the
 * in-memory indexes with one query instead of reading every file, and a recall reads its
 * candidates' rows instead of their files. The JSON files stay the truth; this index is rebuilt
 * from them whenever it is missing, corrupt or out of step.
 */
import { join } from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Logger } from "../../core/mod.ts";
import type { DocTerms } from "./_terms.ts";
import { floatsOfBlob } from "./vectors.ts";
import { type IndexBody, type IndexHit, type IndexRow, rowHit, toRow } from "./_index_rows.ts";
import {
  checkpoint,
  type CheckpointResult,
  DatabaseError,
  openDatabase,
  withTransaction,
} from "../sqlite.ts";

const MIGRATIONS = [
  `create table docs (
     id text primary key,
     hash text not null unique,
     summary text not null,
     source text not null,
     created_at integer not null,
     updated_at integer not null,
     access_count integer not null default 0,
     last_access integer,
     turn_ids text not null,
     fingerprint text,
     vector blob,
     terms text not null
   );`,
  // Issue 14: the body, so a query's hits come from one select instead of a file each. Rows of
  // an older index get theirs from the files when the store opens (fillBodies).
  `alter table docs add column content text;
   alter table docs add column tags text;
   alter table docs add column entities text;`,
  // Until textForScoring, an archived exchange was embedded and indexed with its timeline
  // stamps ("[2026-12-01 18:00] you: "), whose digits and labels shift its cosine and BM25
  // length. Those rows drop their space, so the re-embed at the next start redoes their vector
  // and words (_reembed.ts). GLOB: "[[]" is a literal "[". A row without its body yet (an index
  // from before migration 2) is redone too.
  `update docs set fingerprint = null where content is null or content glob
     '*[[][0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]] *';`,
  // How many of `terms`, at the end, are the content's own words (_terms.ts): recall's ranking
  // reads them instead of cutting the content again. Null in rows indexed before it.
  `alter table docs add column content_terms integer;`,
];

/** The index database of a document folder. */
export class DocIndexDb {
  #db: DatabaseSync;
  #statements = new Map<string, StatementSync>();

  constructor(path: string) {
    this.#db = openDatabase(path, { migrations: MIGRATIONS });
  }

  #sql(sql: string): StatementSync {
    let s = this.#statements.get(sql);
    if (!s) this.#statements.set(sql, s = this.#db.prepare(sql));
    return s;
  }

  /** Insert a document row with its analyzed words; returns its rowid. */
  insert(row: IndexRow & IndexBody, terms: DocTerms, vector?: Float32Array): number {
    return Number(
      this.#sql(
        `insert into docs (id, hash, summary, source, created_at, updated_at, access_count,
         last_access, turn_ids, fingerprint, vector, terms, content, tags, entities,
         content_terms)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        row.id,
        row.hash,
        row.summary,
        row.source,
        BigInt(row.createdAt),
        BigInt(row.updatedAt),
        BigInt(row.accessCount),
        row.lastAccess === undefined ? null : BigInt(row.lastAccess),
        JSON.stringify(row.turnIds),
        row.fingerprint ?? null,
        vector ? new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength) : null,
        terms.words.join(" "),
        row.content,
        JSON.stringify(row.tags),
        JSON.stringify(row.entities),
        terms.content,
      ).lastInsertRowid,
    );
  }

  /**
   * The rows of `ids` with their bodies (a row not filled yet has none) and their content's
   * words (when kept), by id. Those with a rowid in `keys` (-1: none known) are read by it, as
   * `vectorsOf` reads (~1/3 less time for 50 rows); the rest, and a row found there under
   * another id (a vacuum renumbers rows), by id.
   */
  documents(ids: readonly string[], keys: readonly number[] = []): Map<string, IndexHit> {
    const columns = `id, hash, summary, source, created_at, updated_at, access_count,
      last_access, turn_ids, fingerprint, content, tags, entities, terms, content_terms`;
    const out = new Map<string, IndexHit>();
    const expected = new Map<number, string>();
    ids.forEach((id, i) => (keys[i] ?? -1) >= 0 && expected.set(keys[i]!, id));
    if (expected.size > 0) {
      const rows = this.#sql(
        `select rowid, ${columns} from docs where rowid in (select value from json_each(?))`,
      ).all(JSON.stringify([...expected.keys()]));
      for (const r of rows) {
        if (expected.get(Number(r.rowid)) === String(r.id)) out.set(String(r.id), rowHit(r));
      }
    }
    const rest = ids.filter((id) => !out.has(id));
    if (rest.length === 0) return out;
    const rows = this.#sql(
      `select ${columns} from docs where id in (select value from json_each(?))`,
    ).all(JSON.stringify(rest));
    for (const r of rows) out.set(String(r.id), rowHit(r));
    return out;
  }

  /** Ids of rows without a body (an index from before bodies were kept). */
  withoutBody(): string[] {
    return this.#sql("select id from docs where content is null").all().map((r) => String(r.id));
  }

  /** Store the body of row `id`. */
  setBody(id: string, body: IndexBody): void {
    this.#sql("update docs set content = ?, tags = ?, entities = ? where id = ?").run(
      body.content,
      JSON.stringify(body.tags),
      JSON.stringify(body.entities),
      id,
    );
  }

  /** Run `fn` in one transaction (bulk inserts). */
  transaction<T>(fn: () => T): T {
    return withTransaction(this.#db, fn);
  }

  /** Remove a document row; false when absent. */
  remove(id: string): boolean {
    return Number(this.#sql("delete from docs where id = ?").run(id).changes) > 0;
  }

  /** The id of the document with content hash `hash`. */
  idByHash(hash: string): string | undefined {
    const row = this.#sql("select id from docs where hash = ?").get(hash);
    return row ? String(row.id) : undefined;
  }

  /** One row by id. */
  get(id: string): IndexRow | undefined {
    const row = this.#sql("select * from docs where id = ?").get(id);
    return row ? toRow(row) : undefined;
  }

  /** Ids of every row. */
  ids(): string[] {
    return this.#sql("select id from docs").all().map((r) => String(r.id));
  }

  /** Every id with its stored vector (fingerprint and float32 bytes). */
  vectors(): { id: string; fingerprint?: string; vector?: Float32Array }[] {
    return this.#sql("select id, fingerprint, vector from docs").all().map((r) => ({
      id: String(r.id),
      fingerprint: r.fingerprint === null ? undefined : String(r.fingerprint),
      vector: r.vector instanceof Uint8Array ? floatsOfBlob(r.vector) : undefined,
    }));
  }

  /**
   * The vectors of space `fingerprint` with their rowids, one row at a time (the lazy load of
   * the int8 index).
   */
  *spaceVectors(fingerprint: string): Generator<{ id: string; vector: Float32Array; key: number }> {
    const rows = this.#sql(
      "select rowid, id, vector from docs where fingerprint = ? and vector is not null",
    )
      .iterate(fingerprint);
    for (const r of rows) {
      if (isFloats(r.vector)) {
        yield { id: String(r.id), vector: floatsOfBlob(r.vector), key: Number(r.rowid) };
      }
    }
  }

  /**
   * The float vectors of `ids` in space `fingerprint` (an exact re-score of int8 hits). Those
   * with a rowid in `keys` (-1: none known) are read by it, one b-tree instead of the id index
   * and then the table (~1/3 less time for 400 rows); a row found there under another id (a
   * vacuum renumbers rows) and the rest are read by id.
   */
  vectorsOf(
    ids: readonly string[],
    fingerprint: string,
    keys: readonly number[] = [],
  ): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    const expected = new Map<number, string>();
    ids.forEach((id, i) => (keys[i] ?? -1) >= 0 && expected.set(keys[i]!, id));
    const take = (rows: Record<string, unknown>[], ok: (r: Record<string, unknown>) => boolean) => {
      for (const r of rows) {
        if (isFloats(r.vector) && ok(r)) out.set(String(r.id), floatsOfBlob(r.vector));
      }
    };
    if (expected.size > 0) {
      const rows = this.#sql(
        `select rowid, id, vector from docs where rowid in (select value from json_each(?))
         and fingerprint = ? and vector is not null`,
      ).all(JSON.stringify([...expected.keys()]), fingerprint);
      take(rows, (r) => expected.get(Number(r.rowid)) === String(r.id));
    }
    const rest = ids.filter((id) => !out.has(id));
    if (rest.length === 0) return out;
    take(
      this.#sql(
        `select id, vector from docs where id in (select value from json_each(?))
         and fingerprint = ? and vector is not null`,
      ).all(JSON.stringify(rest), fingerprint),
      () => true,
    );
    return out;
  }

  /** How many rows have no vector of space `fingerprint` with `bytes` bytes. */
  staleVectors(fingerprint: string, bytes: number): number {
    return Number(
      this.#sql(
        `select count(*) as n from docs where fingerprint is null or fingerprint != ?
         or vector is null or length(vector) != ?`,
      ).get(fingerprint, bytes)!.n,
    );
  }

  /**
   * Replace a document's vector and its analyzed words, those of `content`: the count of the
   * content's own is kept only when the row's body is that content (a row's words must be its
   * body's, whatever a file held).
   */
  setVector(
    id: string,
    fingerprint: string,
    vector: Float32Array,
    terms: DocTerms,
    content: string,
  ): void {
    this.#sql(
      `update docs set fingerprint = ?, vector = ?, terms = ?,
         content_terms = case when content = ? then ? end where id = ?`,
    ).run(
      fingerprint,
      new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength),
      terms.words.join(" "),
      content,
      terms.content,
      id,
    );
  }

  /** Count an access of each id at `now`. */
  touch(ids: readonly string[], now: number): void {
    withTransaction(this.#db, () => {
      for (const id of ids) {
        this.#sql(
          "update docs set access_count = access_count + 1, last_access = ? where id = ?",
        ).run(BigInt(now), id);
      }
    });
  }

  /** Every id with its analyzed words. */
  terms(): { id: string; terms: string }[] {
    return this.#sql("select id, terms from docs").all()
      .map((r) => ({ id: String(r.id), terms: String(r.terms) }));
  }

  /** Rows last accessed (or created, if never) before `before`, with at most `maxAccess` accesses. */
  cold(before: number, maxAccess: number): IndexRow[] {
    return this.#sql(
      `select * from docs where coalesce(last_access, created_at) < ? and access_count <= ?
       order by created_at`,
    ).all(BigInt(before), maxAccess).map(toRow);
  }

  /** The `limit` newest rows. */
  recent(limit: number): IndexRow[] {
    return this.#sql("select * from docs order by created_at desc, rowid desc limit ?")
      .all(limit).map(toRow);
  }

  /** Whether the index holds no row (O(1), where count() walks a whole index). */
  empty(): boolean {
    return this.#sql("select 1 from docs limit 1").get() === undefined;
  }

  /** Number of rows. */
  count(): number {
    return Number(this.#sql("select count(*) as n from docs").get()!.n);
  }

  /** Vacuum and empty the write-ahead log (after an erase). */
  compact(): CheckpointResult {
    return checkpoint(this.#db, { vacuum: true });
  }

  /** Close the database. */
  close(): void {
    if (!this.#db.isOpen) return;
    this.#statements.clear();
    this.#db.close();
  }
}

function isFloats(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.byteLength % 4 === 0;
}

/** Open `dir`/index.db; a corrupt one is moved aside (with a log line) and rebuilt empty. */
export async function openDocIndex(dir: string, logger: Logger): Promise<DocIndexDb> {
  const path = join(dir, "index.db");
  try {
    return new DocIndexDb(path);
  } catch (error) {
    if (!(error instanceof DatabaseError) || error.code !== "db_corrupt") throw error;
    const aside = `${path}.corrupt-${Date.now()}`;
    await Deno.rename(path, aside);
    logger.error("The document index is corrupt; moved it aside and rebuilding it", {
      path,
      movedTo: aside,
    });
    return new DocIndexDb(path);
  }
}
