/**
 * The document layer (ARCHITECTURE.md "Document Layer"): one JSON file per document under
 * memory/docs/, an index sidecar (SQLite: counters, vectors, analyzed words, bodies) and two
 * in-memory indexes (int8 vectors in wasm, BM25 postings), so a query never reads the files:
 * its hits come from one select of their rows. Query = recall's dense/BM25 mix (recall/mix.ts).
 */
import type {
  Clock,
  DocumentStore,
  Embedder,
  Logger,
  MemoryDocument,
  NewDocument,
  ScoredDocument,
  TextRedactor,
} from "../../core/mod.ts";
import { errorMessage, textForScoring } from "../../core/mod.ts";
import { type DocTerms, docTerms } from "./_terms.ts";
import type { StaleReembedOptions } from "../embed/reembed.ts";
import type { TextAnalyzer } from "../text/keywords.ts";
import { type DocIndexDb, openDocIndex } from "./_index_db.ts";
import { rowDocument } from "./_index_rows.ts";
import { mergeHits, mixScores } from "../recall/mix.ts";
import { embedQuery, queryTerms, type QueryVector, type RecallQuery } from "../recall/query.ts";
import {
  defaultRecallSettings,
  denseWeightFor,
  type RecallSettingsSource,
} from "../recall/config.ts";
import { Bm25Index } from "../text/bm25.ts";
import { contentHash, type DocRecord, readDocFile, removeDocFile, writeDocFile } from "./_files.ts";
import type { DocVectors } from "./vectors.ts";
import { documentVectors, fillBodies, loadMemoryIndex, reconcileFiles } from "./_open.ts";
import { reembedStaleDocuments } from "./_reembed.ts";

/** A new document's record, as the store writes one (the evaluation builds its corpus by it). */
export { newDocument } from "./_files.ts";
import type { CheckpointResult } from "../sqlite.ts";
import { planDocuments, writeNewFiles } from "./_insert.ts";

/** Options of DocStore.query (the port's, plus a vector the caller already has). */
export type DocQueryOptions = Parameters<DocumentStore["query"]>[1] & {
  /** The query's vector (recall embeds it once for every tier), or its promise (query.ts). */
  vector?: QueryVector;
};

/**
 * A hit of DocStore.query, with its content's words as the store's analyzer cuts them
 * (`tokenize(textForScoring(content))`) when the index kept them: recall's ranking reads them.
 */
export interface DocHit extends ScoredDocument {
  words?: string[];
}

/** Options of DocStore.open. */
export interface DocStoreOptions {
  /** The folder of the JSON files (memory/docs); the index lives in it as index.db. */
  dir: string;
  embedder: Embedder;
  analyzer: TextAnalyzer;
  clock: Clock;
  logger: Logger;
  /** The dense/keyword mix and the query's turns; default the space's defaults. */
  recall?: RecallSettingsSource;
  /** A dense-only hit needs at least this cosine to count; default 0.25. */
  minDense?: number;
  /** Blanks out forgotten names in every document before it is stored. */
  redactor?: TextRedactor;
}

/** The document store. */
export class DocStore implements DocumentStore {
  #o: DocStoreOptions;
  #db: DocIndexDb;
  #vectors: DocVectors;
  #words = new Bm25Index();

  private constructor(options: DocStoreOptions, db: DocIndexDb) {
    this.#o = options;
    this.#db = db;
    this.#vectors = documentVectors(db, options.embedder);
  }

  /** Open the folder: reconcile the index with the files, load the vectors, report stale ones. */
  static async open(options: DocStoreOptions): Promise<DocStore> {
    await Deno.mkdir(options.dir, { recursive: true });
    const db = await openDocIndex(options.dir, options.logger);
    const store = new DocStore(options, db);
    const reconcile = {
      db,
      dir: options.dir,
      logger: options.logger,
      read: (id: string) => store.#read(id),
      indexFound: (record: DocRecord) => store.#indexFound(record),
    };
    await reconcileFiles(reconcile);
    await fillBodies(reconcile);
    loadMemoryIndex(db, store.#words, options);
    return store;
  }

  size(): number {
    return this.#db.count();
  }

  /** Vectors held in memory, in bytes (0 until the first query loads them). */
  vectorBytes(): number {
    return this.#vectors.residentBytes();
  }

  async insert(doc: NewDocument): Promise<{ id: string; duplicate: boolean }> {
    const [result] = await this.insertMany([doc], { sync: true });
    return result!;
  }

  /**
   * Store many documents, all or none: embedded in batches and their files written (without a
   * per-file fsync when `sync` is false; the folder is synced once), then indexed in one
   * transaction. Identical content is stored once: a document whose content is already here —
   * or earlier in `docs`, or committed by another writer meanwhile (another process, a
   * concurrent import) — comes back as `duplicate` with the id of the one kept. On failure
   * nothing is indexed and the files written are removed.
   */
  async insertMany(
    docs: readonly NewDocument[],
    options: { batch?: number; sync?: boolean; signal?: AbortSignal } = {},
  ): Promise<{ id: string; duplicate: boolean }[]> {
    const planned = await planDocuments(docs, {
      storedId: (hash) => this.#db.idByHash(hash),
      now: this.#o.clock.now(),
      redactor: this.#o.redactor,
    });
    const fresh = planned.flatMap((p) =>
      p.document ? [{ document: p.document, hash: p.hash }] : []
    );
    const written: DocRecord[] = [];
    let kept: Map<string, string>;
    try {
      await writeNewFiles(this.#o.dir, this.#o.embedder, fresh, written, options);
      kept = this.#commit(written);
    } catch (error) {
      await Promise.all(written.map((r) => removeDocFile(this.#o.dir, r.document.id)));
      throw error;
    }
    const surplus = written.filter((r) => kept.get(r.hash) !== r.document.id);
    await Promise.all(surplus.map((r) => removeDocFile(this.#o.dir, r.document.id)));
    return planned.map((p) => {
      const id = p.stored ?? kept.get(p.hash)!;
      return { id, duplicate: id !== p.document?.id };
    });
  }

  /**
   * Index `records` in one transaction, then in memory; returns each hash with the id kept.
   * Another writer may have stored the same content since planDocuments: its id is kept and this
   * record is surplus. A row with the record's own id was indexed from its file by another
   * process opening the folder meanwhile, and counts as stored.
   */
  #commit(records: readonly DocRecord[]): Map<string, string> {
    const kept = new Map<string, string>();
    const terms = records.map((r) => this.#terms(r.document));
    const indexed = new Map<number, number | undefined>(); // record → its rowid, if ours
    this.#db.transaction(() => {
      for (const [i, record] of records.entries()) {
        const holder = this.#db.idByHash(record.hash);
        kept.set(record.hash, holder ?? record.document.id);
        if (holder === undefined) indexed.set(i, this.#indexRow(record, terms[i]!));
        else if (holder === record.document.id) indexed.set(i, undefined);
      }
    });
    for (const [i, key] of indexed) this.#indexMemory(records[i]!, terms[i]!, key);
    return kept;
  }

  async query(text: string, options: DocQueryOptions = {}): Promise<DocHit[]> {
    const k = options.k ?? 3;
    // Not size(): count(*) walks an index of every row (~5–20 ms at 100,000), each query.
    if (text.trim() === "" || this.#db.empty()) return [];
    const pool = Math.max(50, k * 4);
    const settings = (this.#o.recall ?? (() => defaultRecallSettings(this.#o.embedder)))();
    const query: RecallQuery = { turns: [...(options.context ?? []), text], decay: settings.decay };
    // The keyword side first: a caller handing a promise of the vector embeds it meanwhile.
    const terms = queryTerms(query, this.#o.analyzer);
    const keyword = this.#words.search([...terms.keys()], pool, terms);
    const given = await options.vector;
    const vector = given?.length === this.#o.embedder.dim
      ? given
      : await embedQuery(query, this.#o.embedder, options.signal);
    const dense = this.#vectors.search(vector, pool);
    const minDense = options.minDense ?? this.#o.minDense ?? 0.25;
    const fused = mixScores(mergeHits(dense, keyword), {
      dense: denseWeightFor(settings, query.turns),
    })
      .filter((h) => h.keyword !== undefined || (h.dense ?? 0) >= minDense).slice(0, k);
    const ids = fused.map((h) => h.id);
    const rows = this.#db.documents(ids, ids.map((id) => this.#vectors.keyOf(id)));
    const hits: DocHit[] = [];
    for (const hit of fused) {
      // A row without its body (its copy failed at open) is read from its file.
      const row = rows.get(hit.id);
      const fromRow = rowDocument(row);
      const document = fromRow ?? (await this.#read(hit.id))?.document;
      if (!document) continue;
      const words = fromRow && row?.words ? { words: row.words } : {};
      hits.push({
        document,
        score: hit.score,
        dense: hit.dense,
        keyword: hit.keyword !== undefined,
        ...words,
      });
    }
    if (options.touch && hits.length > 0) await this.#touch(hits.map((h) => h.document));
    return hits;
  }

  /** The `limit` newest documents' index rows (no file is read): for lists in the UI. */
  recent(
    limit: number,
  ): { id: string; summary: string; source: string; createdAt: number; accessCount: number }[] {
    return this.#db.recent(limit).map(({ id, summary, source, createdAt, accessCount }) => ({
      id,
      summary,
      source,
      createdAt,
      accessCount,
    }));
  }

  /** Every document, oldest first (export); files that cannot be read are logged and skipped. */
  async *all(): AsyncGenerator<MemoryDocument> {
    const rows = this.#db.ids().map((id) => this.#db.get(id)!).filter((r) => r !== undefined)
      .sort((a, b) => a.createdAt - b.createdAt);
    for (const row of rows) {
      const record = await this.#read(row.id);
      if (record) yield record.document;
    }
  }

  async consume(ids: readonly string[]): Promise<MemoryDocument[]> {
    const taken: MemoryDocument[] = [];
    for (const id of ids) {
      const record = await this.#read(id);
      if (!record) continue;
      await this.remove(id);
      taken.push(record.document);
    }
    return taken.sort((a, b) => a.createdAt - b.createdAt);
  }

  async findCold(
    options: { now: number; idleMs: number; maxAccess: number },
  ): Promise<MemoryDocument[]> {
    const rows = this.#db.cold(options.now - options.idleMs, options.maxAccess);
    const docs: MemoryDocument[] = [];
    for (const row of rows) {
      const record = await this.#read(row.id);
      if (record) docs.push(record.document);
    }
    return docs;
  }

  /** Ids of every document (a sweep reads them one by one with `get`). */
  ids(): string[] {
    return this.#db.ids();
  }

  /** One document by id; undefined when absent or unreadable (logged). */
  async get(id: string): Promise<MemoryDocument | undefined> {
    return (await this.#read(id))?.document;
  }

  /**
   * Replace document `id` by `next` (same id; counters as given), re-hashed, re-embedded and
   * re-indexed; when another document already holds the new content this one is removed
   * instead. Resolves what happened. The file is written first: a crash after it leaves an
   * index row that the next rewrite of the same document replaces.
   */
  async rewrite(id: string, next: MemoryDocument): Promise<"rewritten" | "removed"> {
    const content = next.content.trim();
    const hash = await contentHash(content);
    const holder = this.#db.idByHash(hash);
    if (holder !== undefined && holder !== id) return await this.remove(id), "removed";
    const { embedder } = this.#o;
    const [vector] = await embedder.embed([textForScoring(content)]);
    const record = {
      document: { ...next, id, content },
      hash,
      vector: { fingerprint: embedder.fingerprint, vector: vector! },
    };
    await writeDocFile(this.#o.dir, record);
    const terms = this.#terms(record.document);
    const key = this.#db.transaction(() => {
      this.#db.remove(id);
      return this.#indexRow(record, terms);
    });
    this.#words.remove(id);
    this.#indexMemory(record, terms, key);
    return "rewritten";
  }

  /** Vacuum the index and empty its write-ahead log (after an erase). */
  compact(): CheckpointResult {
    return this.#db.compact();
  }

  async remove(id: string): Promise<boolean> {
    // The index goes first: a crash in between leaves a file that reconcile re-indexes.
    const indexed = this.#db.remove(id);
    this.#vectors.delete(id);
    this.#words.remove(id);
    const file = await removeDocFile(this.#o.dir, id);
    return indexed || file;
  }

  /** How many documents have a vector from another space (or none). */
  staleVectors(): number {
    const { fingerprint, dim } = this.#o.embedder;
    return this.#db.staleVectors(fingerprint, dim * 4);
  }

  /** Re-embed documents whose vector is not of this space (_reembed.ts). Returns the count. */
  reembedStale(options: StaleReembedOptions = {}): Promise<number> {
    return reembedStaleDocuments({
      db: this.#db,
      dir: this.#o.dir,
      embedder: this.#o.embedder,
      read: (id) => this.#read(id),
      terms: (d) => this.#terms(d),
      reindexed: (id, vector, terms) => {
        this.#vectors.put(id, vector);
        this.#words.remove(id);
        this.#words.add(id, terms.words);
      },
    }, options);
  }

  /** Close the index database. */
  close(): void {
    this.#db.close();
  }

  /** Returns the row's rowid. */
  #indexRow(record: DocRecord, terms: DocTerms): number {
    const d = record.document;
    const row = { ...d, hash: record.hash, fingerprint: record.vector?.fingerprint };
    return this.#db.insert(row, terms, record.vector?.vector);
  }

  #indexMemory(record: DocRecord, terms: DocTerms, key?: number): void {
    this.#words.add(record.document.id, terms.words);
    if (record.vector?.fingerprint === this.#o.embedder.fingerprint) {
      this.#vectors.put(record.document.id, record.vector.vector, key);
    }
  }

  #terms(d: MemoryDocument): DocTerms {
    return docTerms(this.#o.analyzer, d);
  }

  async #read(id: string): Promise<DocRecord | undefined> {
    try {
      return await readDocFile(this.#o.dir, id);
    } catch (error) {
      this.#o.logger.error("Cannot read a document file; skipping it", {
        id,
        error: errorMessage(error),
      });
      return undefined;
    }
  }

  async #touch(docs: MemoryDocument[]): Promise<void> {
    const now = this.#o.clock.now();
    this.#db.touch(docs.map((d) => d.id), now);
    for (const doc of docs) {
      doc.accessCount++;
      doc.lastAccess = now;
      const record = await this.#read(doc.id);
      if (record) await writeDocFile(this.#o.dir, { ...record, document: doc });
    }
  }

  /**
   * Index a file found on disk unless its content or id is indexed already. Check and insert
   * are one transaction: another process (a concurrent import) may commit the same document
   * in between otherwise, and the insert would fail on the unique hash.
   */
  #indexFound(record: DocRecord): void {
    const terms = this.#terms(record.document);
    const key = this.#db.transaction(() => {
      if (this.#db.idByHash(record.hash) !== undefined) return undefined; // keep the indexed one
      return this.#indexRow(record, terms);
    });
    if (key !== undefined) this.#indexMemory(record, terms, key);
  }
}
