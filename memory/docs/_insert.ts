/** The two steps of DocStore.insertMany before indexing: plan (normalise, de-duplicate), write. */
import type { Embedder, MemoryDocument, NewDocument, TextRedactor } from "../../core/mod.ts";
import { textForScoring } from "../../core/mod.ts";
import { syncPath } from "../home.ts";
import { contentHash, type DocRecord, newDocument, redactNew, writeDocFile } from "./_files.ts";

/** One document of an insertMany call: new (`document`), already `stored`, or a repeat. */
export interface PlannedDoc {
  hash: string;
  document?: MemoryDocument;
  stored?: string;
}

/**
 * Redact (forgotten names), normalise and hash `docs`: a new document each, or the id already
 * stored under its hash, or a repeat of one earlier in `docs`. Throws TypeError on empty content.
 */
export async function planDocuments(
  docs: readonly NewDocument[],
  options: { storedId(hash: string): string | undefined; now: number; redactor?: TextRedactor },
): Promise<PlannedDoc[]> {
  const planned: PlannedDoc[] = [];
  const seen = new Set<string>();
  for (const raw of docs) {
    const doc = options.redactor ? redactNew(raw, options.redactor) : raw;
    const content = doc.content.trim();
    if (content === "") throw new TypeError("Cannot store an empty document");
    const hash = await contentHash(content);
    const stored = options.storedId(hash);
    if (stored !== undefined) planned.push({ hash, stored });
    else if (seen.has(hash)) planned.push({ hash });
    else {
      seen.add(hash);
      planned.push({ hash, document: newDocument(doc, content, options.now) });
    }
  }
  return planned;
}

/**
 * Embed `fresh` in batches and write their files into `dir`, adding each written one to
 * `written` (so a failure can remove them). With `sync: false` the folder is synced once.
 */
export async function writeNewFiles(
  dir: string,
  embedder: Embedder,
  fresh: readonly { document: MemoryDocument; hash: string }[],
  written: DocRecord[],
  options: { batch?: number; sync?: boolean; signal?: AbortSignal },
): Promise<void> {
  const batch = options.batch ?? 256;
  for (let start = 0; start < fresh.length; start += batch) {
    options.signal?.throwIfAborted();
    const part = fresh.slice(start, start + batch);
    const vectors = await embedder.embed(
      part.map((p) => textForScoring(p.document.content)),
      options,
    );
    for (const [i, { document, hash }] of part.entries()) {
      const record = {
        document,
        hash,
        vector: { fingerprint: embedder.fingerprint, vector: vectors[i]! },
      };
      await writeDocFile(dir, record, { sync: options.sync });
      written.push(record);
    }
  }
  if (options.sync === false && written.length > 0) await syncPath(dir);
  options.signal?.throwIfAborted();
}
