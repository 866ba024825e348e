/**
 * The document layer (ARCHITECTURE.md "Document Layer"): one JSON file per document under
 * memory/docs/, an index sidecar (SQLite: counters, vectors, analyzed words) and two
 * in-memory indexes (int8 vectors in wasm, BM25 postings), so a query never re-reads the
 * files. Query = dense cosine in the current space fused by rank with BM25 over the words.
 */
import { join } from "node:path";
import type {
  Clock,
  DocumentStore,
  Embedder,
  Logger,
  MemoryDocument,
  NewDocument,
  ScoredDocument,
} from "../core/mod.ts";
import { errorMessage } from "../core/mod.ts";
import type { TextAnalyzer } from "./keywords.ts";
import { DatabaseError } from "./sqlite.ts";
import { syncPath } from "./home.ts";
import { DocIndexDb, type IndexRow } from "./_doc_index_db.ts";
import { Bm25Index } from "./_bm25.ts";
import {
  contentHash,
  type DocRecord,
  listDocIds,
  readDocFile,
  removeDocFile,
  writeDocFile,
} from "./_doc_files.ts";
import { DocVectors } from "./_doc_vectors.ts";

/** Options of DocStore.open. */
export interface DocStoreOptions {
  /** The folder of the JSON files (memory/docs); the index lives in it as index.db. */
  dir: string;
  embedder: Embedder;
  analyzer: TextAnalyzer;
  clock: Clock;
  logger: Logger;
  /** Reciprocal-rank constant of the fusion; 60 by default. */
  rrfK?: number;
  /** A dense-only hit needs at least this cosine to count; default 0.25. */
  minDense?: number;
}

const SUMMARY_CHARS = 200;

/** The document store. */
export class DocStore implements DocumentStore {
  #o: DocStoreOptions;
  #db: DocIndexDb;
  #vectors: DocVectors;
  #words = new Bm25Index();

  private constructor(options: DocStoreOptions, db: DocIndexDb) {
    this.#o = options;
    this.#db = db;
    this.#vectors = new DocVectors(options.embedder.dim, { capacity: db.count() + 64 });
  }

  /** Open the folder: reconcile the index with the files, load the vectors, report stale ones. */
  static async open(options: DocStoreOptions): Promise<DocStore> {
    await Deno.mkdir(options.dir, { recursive: true });
    const store = new DocStore(options, await openIndex(options));
    await store.#reconcile();
    store.#loadVectors();
    return store;
  }

  size(): number {
    return this.#db.count();
  }

  /** Vectors held in memory, in bytes. */
  vectorBytes(): number {
    return this.#vectors.residentBytes();
  }

  async insert(doc: NewDocument): Promise<{ id: string; duplicate: boolean }> {
    const [result] = await this.insertMany([doc], { sync: true });
    return result!;
  }

  /**
   * Store many documents: embedded in batches, files written without a per-file fsync and the
   * folder synced once per batch (bulk import, archive, evaluation). De-duplicates like insert.
   */
  async insertMany(
    docs: readonly NewDocument[],
    options: { batch?: number; sync?: boolean; signal?: AbortSignal } = {},
  ): Promise<{ id: string; duplicate: boolean }[]> {
    const results: { id: string; duplicate: boolean }[] = [];
    const batch = options.batch ?? 256;
    for (let start = 0; start < docs.length; start += batch) {
      options.signal?.throwIfAborted();
      const fresh: { document: MemoryDocument; hash: string }[] = [];
      const seen = new Map<string, string>();
      for (const doc of docs.slice(start, start + batch)) {
        const content = doc.content.trim();
        if (content === "") throw new TypeError("Cannot store an empty document");
        const hash = await contentHash(content);
        const existing = this.#db.idByHash(hash) ?? seen.get(hash);
        if (existing) {
          results.push({ id: existing, duplicate: true });
          continue;
        }
        const document = this.#newDocument(doc, content);
        seen.set(hash, document.id);
        fresh.push({ document, hash });
        results.push({ id: document.id, duplicate: false });
      }
      const vectors = await this.#o.embedder.embed(fresh.map((f) => f.document.content), options);
      const records = fresh.map(({ document, hash }, i) => ({
        document,
        hash,
        vector: { fingerprint: this.#o.embedder.fingerprint, vector: vectors[i]! },
      }));
      for (const record of records) {
        await writeDocFile(this.#o.dir, record, { sync: options.sync });
      }
      this.#db.transaction(() => records.forEach((record) => this.#index(record)));
      if (options.sync === false && fresh.length > 0) await syncPath(this.#o.dir);
    }
    return results;
  }

  #newDocument(doc: NewDocument, content: string): MemoryDocument {
    const now = this.#o.clock.now();
    return {
      id: newId(doc.createdAt ?? now),
      summary: doc.summary?.trim() || summarize(content),
      content,
      tags: doc.tags ?? [],
      entities: doc.entities ?? [],
      source: doc.source,
      createdAt: doc.createdAt ?? now,
      updatedAt: now,
      accessCount: 0,
      turnIds: doc.turnIds ?? [],
    };
  }

  async query(
    text: string,
    options: { k?: number; signal?: AbortSignal; touch?: boolean; minDense?: number } = {},
  ): Promise<ScoredDocument[]> {
    const k = options.k ?? 3;
    if (text.trim() === "" || this.#vectors.size + this.size() === 0) return [];
    const pool = Math.max(50, k * 4);
    const [queryVector] = await this.#o.embedder.embed([text], { signal: options.signal });
    const dense = this.#vectors.search(queryVector!, pool);
    const keyword = this.#words.search(this.#o.analyzer.tokenize(text), pool);
    const minDense = options.minDense ?? this.#o.minDense ?? 0.25;
    const fused = fuse(dense, keyword, this.#o.rrfK ?? 60, minDense).slice(0, k);
    const hits: ScoredDocument[] = [];
    for (const hit of fused) {
      const record = await this.#read(hit.id);
      if (record) hits.push({ document: record.document, ...hit });
    }
    if (options.touch && hits.length > 0) await this.#touch(hits.map((h) => h.document));
    return hits;
  }

  /** The `limit` newest documents' index rows (no file is read): for lists in the UI. */
  recent(
    limit: number,
  ): { id: string; summary: string; source: string; createdAt: number; accessCount: number }[] {
    return this.#db.recent(limit).map((r) => ({
      id: r.id,
      summary: r.summary,
      source: r.source,
      createdAt: r.createdAt,
      accessCount: r.accessCount,
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

  async markAccessed(ids: readonly string[]): Promise<void> {
    const docs: MemoryDocument[] = [];
    for (const id of ids) {
      const record = await this.#read(id);
      if (record) docs.push(record.document);
    }
    if (docs.length > 0) await this.#touch(docs);
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

  async remove(id: string): Promise<boolean> {
    // The index goes first: a crash in between leaves a file that reconcile re-indexes.
    const indexed = this.#db.remove(id);
    this.#vectors.delete(id);
    this.#words.remove(id);
    const file = await removeDocFile(this.#o.dir, id);
    return indexed || file;
  }

  /** Re-embed documents whose vector is from another space; logs progress. Returns the count. */
  async reembedStale(options: { batch?: number; signal?: AbortSignal } = {}): Promise<number> {
    const { embedder, logger } = this.#o;
    const stale = this.#db.vectors().filter((v) => v.fingerprint !== embedder.fingerprint)
      .map((v) => v.id);
    if (stale.length === 0) return 0;
    logger.info("Re-embedding documents from another vector space", {
      count: stale.length,
      fingerprint: embedder.fingerprint,
    });
    const batch = options.batch ?? 64;
    let done = 0;
    for (let i = 0; i < stale.length; i += batch) {
      options.signal?.throwIfAborted();
      const records = (await Promise.all(stale.slice(i, i + batch).map((id) => this.#read(id))))
        .filter((r): r is DocRecord => r !== undefined);
      const vectors = await embedder.embed(records.map((r) => r.document.content), options);
      for (const [j, record] of records.entries()) {
        const vector = { fingerprint: embedder.fingerprint, vector: vectors[j]! };
        await writeDocFile(this.#o.dir, { ...record, vector });
        this.#db.setVector(record.document.id, vector.fingerprint, vector.vector);
        this.#vectors.put(record.document.id, vector.vector);
      }
      done += records.length;
      logger.info("Re-embedding documents", { done, total: stale.length });
    }
    return done;
  }

  /** Close the index database. */
  close(): void {
    this.#db.close();
  }

  #index(record: DocRecord): void {
    const d = record.document;
    const row: IndexRow = { ...d, hash: record.hash, fingerprint: record.vector?.fingerprint };
    const terms = this.#o.analyzer.tokenize(`${d.summary}\n${d.content}`);
    this.#db.insert(row, terms.join(" "), record.vector?.vector);
    this.#words.add(d.id, terms);
    if (record.vector?.fingerprint === this.#o.embedder.fingerprint) {
      this.#vectors.put(d.id, record.vector.vector);
    }
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

  async #reconcile(): Promise<void> {
    const files = new Set(await listDocIds(this.#o.dir));
    const indexed = new Set(this.#db.ids());
    for (const id of indexed) {
      if (!files.has(id)) this.#db.remove(id);
    }
    const missing = [...files].filter((id) => !indexed.has(id));
    if (missing.length > 0) {
      this.#o.logger.info("Indexing document files", { count: missing.length });
    }
    for (const [i, id] of missing.entries()) {
      const record = await this.#read(id);
      if (!record) continue;
      if (this.#db.idByHash(record.hash)) continue; // a duplicate file: keep the indexed one
      this.#index(record);
      if ((i + 1) % 5000 === 0) {
        this.#o.logger.info("Indexing document files", { done: i + 1, total: missing.length });
      }
    }
  }

  #loadVectors(): void {
    for (const row of this.#db.terms()) {
      this.#words.add(row.id, row.terms === "" ? [] : row.terms.split(" "));
    }
    let stale = 0;
    for (const row of this.#db.vectors()) {
      if (
        row.fingerprint === this.#o.embedder.fingerprint &&
        row.vector?.length === this.#o.embedder.dim
      ) {
        this.#vectors.put(row.id, row.vector);
      } else stale++;
    }
    if (stale > 0) {
      this.#o.logger.warn("Documents with vectors from another space; run a re-embed", {
        stale,
        fingerprint: this.#o.embedder.fingerprint,
      });
    }
  }
}

async function openIndex(options: DocStoreOptions): Promise<DocIndexDb> {
  const path = join(options.dir, "index.db");
  try {
    return new DocIndexDb(path);
  } catch (error) {
    if (!(error instanceof DatabaseError) || error.code !== "db_corrupt") throw error;
    const aside = `${path}.corrupt-${Date.now()}`;
    await Deno.rename(path, aside);
    options.logger.error("The document index is corrupt; moved it aside and rebuilding it", {
      path,
      movedTo: aside,
    });
    return new DocIndexDb(path);
  }
}

/** Reciprocal rank fusion of the dense and keyword lists. */
function fuse(
  dense: { id: string; score: number }[],
  keyword: { id: string; score: number }[],
  k: number,
  minDense: number,
): { id: string; score: number; dense?: number; keyword: boolean }[] {
  const hits = new Map<string, { id: string; score: number; dense?: number; keyword: boolean }>();
  dense.forEach((d, rank) => {
    hits.set(d.id, { id: d.id, score: 1 / (k + rank + 1), dense: d.score, keyword: false });
  });
  keyword.forEach((w, rank) => {
    const hit = hits.get(w.id) ?? { id: w.id, score: 0, keyword: false };
    hit.score += 1 / (k + rank + 1);
    hit.keyword = true;
    hits.set(w.id, hit);
  });
  return [...hits.values()].filter((h) => h.keyword || (h.dense ?? 0) >= minDense)
    .sort((a, b) => b.score - a.score);
}

function summarize(content: string): string {
  const flat = content.replace(/\s+/g, " ").trim();
  return flat.length <= SUMMARY_CHARS ? flat : `${flat.slice(0, SUMMARY_CHARS - 1)}…`;
}

function newId(createdAt: number): string {
  return `d${createdAt.toString(36)}_${crypto.randomUUID().slice(0, 8)}`;
}
