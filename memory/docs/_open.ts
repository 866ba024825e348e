/**
 * What opening the document store does before its first query: the index is brought in step
 * with the files (a file is the truth, a row without its file goes), then the words are loaded
 * into memory (the vectors wait for the first query). A vector from another space is counted
 * and left for a re-embed.
 */
import type { Embedder, Logger } from "../../core/mod.ts";
import type { Bm25Index } from "../text/bm25.ts";
import type { DocIndexDb } from "./_index_db.ts";
import { type DocRecord, listDocIds } from "./_files.ts";
import { DocVectors } from "./vectors.ts";

/**
 * The documents' vector index of `embedder`'s space: loaded at the first query, not at open
 * (an idle daemon holds no matrix, docs/memory.md), exact by the stored float vectors, read
 * back by rowid.
 */
export function documentVectors(db: DocIndexDb, embedder: Embedder): DocVectors {
  const { fingerprint, dim } = embedder;
  return new DocVectors(dim, {
    capacity: () => db.count() + 64,
    load: () => db.spaceVectors(fingerprint),
    exact: (ids, keys) => db.vectorsOf(ids, fingerprint, keys),
  });
}

/** The parts of an opening store that reconciling needs. */
export interface Reconcile {
  db: DocIndexDb;
  dir: string;
  logger: Logger;
  /** A document's file, or undefined (logged) when it cannot be read. */
  read(id: string): Promise<DocRecord | undefined>;
  /** Index a file found on disk (unless its content is indexed already). */
  indexFound(record: DocRecord): void;
}

/** Drop rows whose file is gone and index files the index lacks, logging progress. */
export async function reconcileFiles(r: Reconcile): Promise<void> {
  // Rows before files: a writer writes a document's file before it commits its row, so every
  // row read here has its file in the listing unless that file is really gone.
  const indexed = new Set(r.db.ids());
  const files = new Set(await listDocIds(r.dir));
  for (const id of indexed) {
    if (!files.has(id)) r.db.remove(id);
  }
  const missing = [...files].filter((id) => !indexed.has(id));
  if (missing.length > 0) r.logger.info("Indexing document files", { count: missing.length });
  for (const [i, id] of missing.entries()) {
    const record = await r.read(id);
    if (record) r.indexFound(record);
    if ((i + 1) % 5000 === 0) {
      r.logger.info("Indexing document files", { done: i + 1, total: missing.length });
    }
  }
}

/**
 * Give the rows of an index from before bodies were kept (issue 14) their bodies from the
 * files, once, in batches of 500 (a file that cannot be read is logged and keeps none).
 */
export async function fillBodies(r: Reconcile): Promise<void> {
  const ids = r.db.withoutBody();
  if (ids.length === 0) return;
  r.logger.info("Copying document bodies into the index", { count: ids.length });
  for (let i = 0; i < ids.length; i += 500) {
    const records = await Promise.all(ids.slice(i, i + 500).map((id) => r.read(id)));
    r.db.transaction(() => {
      for (const record of records) {
        if (record) r.db.setBody(record.document.id, record.document);
      }
    });
  }
}

/**
 * Load every document's words from the index, and count the vectors of another space (or
 * none) for a warning; the vectors of this space are loaded at the first query (DocVectors).
 */
export function loadMemoryIndex(
  db: DocIndexDb,
  words: Bm25Index,
  options: { embedder: Embedder; logger: Logger },
): void {
  for (const row of db.terms()) words.add(row.id, row.terms === "" ? [] : row.terms.split(" "));
  const { embedder, logger } = options;
  const stale = db.staleVectors(embedder.fingerprint, embedder.dim * 4);
  if (stale > 0) {
    logger.warn("Documents with vectors from another space; run a re-embed", {
      stale,
      fingerprint: embedder.fingerprint,
    });
  }
}
