/**
 * Re-embedding the documents whose vector is not of the store's space (another model, or none:
 * a row whose vector was dropped on purpose, as index.db's migration 3 does for documents
 * embedded with their timeline stamps). Each is embedded by textForScoring, its file rewritten
 * with the vector and its row given the vector and its words analyzed again, so an exchange
 * indexed with its stamps' digits and speaker labels loses those words too.
 */
import { textForScoring } from "../../core/mod.ts";
import type { Embedder, MemoryDocument } from "../../core/mod.ts";
import type { StaleReembedOptions } from "../embed/reembed.ts";
import type { DocIndexDb } from "./_index_db.ts";
import { type DocRecord, writeDocFile } from "./_files.ts";
import type { DocTerms } from "./_terms.ts";

/** The parts of a store that a re-embed writes through. */
export interface ReembedParts {
  db: DocIndexDb;
  dir: string;
  embedder: Embedder;
  /** A document's file, or undefined (logged) when it cannot be read. */
  read(id: string): Promise<DocRecord | undefined>;
  /** The words a document is indexed by. */
  terms(document: MemoryDocument): DocTerms;
  /** The in-memory indexes take the new vector and words. */
  reindexed(id: string, vector: Float32Array, terms: DocTerms): void;
}

/** Re-embed stale documents `batch` at a time (default 64), reporting progress; returns the count. */
export async function reembedStaleDocuments(
  parts: ReembedParts,
  options: StaleReembedOptions = {},
): Promise<number> {
  const { db, embedder } = parts;
  const stale = db.vectors().filter((v) => v.fingerprint !== embedder.fingerprint)
    .map((v) => v.id);
  const batch = options.batch ?? 64;
  let done = 0;
  for (let i = 0; i < stale.length; i += batch) {
    options.signal?.throwIfAborted();
    const records = (await Promise.all(stale.slice(i, i + batch).map((id) => parts.read(id))))
      .filter((r): r is DocRecord => r !== undefined);
    const vectors = await embedder.embed(
      records.map((r) => textForScoring(r.document.content)),
      options,
    );
    for (const [j, record] of records.entries()) {
      const vector = { fingerprint: embedder.fingerprint, vector: vectors[j]! };
      await writeDocFile(parts.dir, { ...record, vector });
      const terms = parts.terms(record.document);
      const { id, content } = record.document;
      db.setVector(id, vector.fingerprint, vector.vector, terms, content);
      parts.reindexed(id, vector.vector, terms);
    }
    done += records.length;
    options.onProgress?.(done);
  }
  return done;
}
