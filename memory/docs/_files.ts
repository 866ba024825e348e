/** Document JSON files: memory/docs/<id>.json, one per document, written atomically. */
import { join } from "node:path";
import { z } from "zod";
import type { MemoryDocument, NewDocument, StoredVector, TextRedactor } from "../../core/mod.ts";
import { decodeVector, encodeVector } from "../stores/context.ts";
import { writeFileAtomic } from "../home.ts";

const DocJson = z.lazy(() =>
  z.object({
    id: z.string(),
    hash: z.string(),
    summary: z.string(),
    content: z.string(),
    tags: z.array(z.string()),
    entities: z.array(z.string()),
    source: z.string(),
    created_at: z.number(),
    updated_at: z.number(),
    access_count: z.number(),
    last_access: z.number().nullable(),
    turn_ids: z.array(z.string()),
    vector: z.object({ fingerprint: z.string(), data: z.string() }).nullable(),
  })
);

/** A document file's content: the document, its content hash and its vector. */
export interface DocRecord {
  document: MemoryDocument;
  hash: string;
  vector?: StoredVector;
}

const ID = /^[A-Za-z0-9_-]{1,80}$/;

/** The path of document `id` in `dir`; refuses ids that could escape the folder. */
export function docPath(dir: string, id: string): string {
  if (!ID.test(id)) throw new TypeError(`Invalid document id "${id}"`);
  return join(dir, `${id}.json`);
}

/** Write a document file atomically. */
export async function writeDocFile(
  dir: string,
  record: DocRecord,
  options: { sync?: boolean } = {},
): Promise<void> {
  const d = record.document;
  const json: z.infer<typeof DocJson> = {
    id: d.id,
    hash: record.hash,
    summary: d.summary,
    content: d.content,
    tags: d.tags,
    entities: d.entities,
    source: d.source,
    "created_at": d.createdAt,
    "updated_at": d.updatedAt,
    "access_count": d.accessCount,
    "last_access": d.lastAccess ?? null,
    "turn_ids": d.turnIds,
    vector: record.vector
      ? { fingerprint: record.vector.fingerprint, data: encodeVector(record.vector.vector) }
      : null,
  };
  await writeFileAtomic(docPath(dir, d.id), JSON.stringify(json), options);
}

/** Read a document file; undefined when it does not exist; throws when it does not parse. */
export async function readDocFile(dir: string, id: string): Promise<DocRecord | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(docPath(dir, id));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const j = DocJson.parse(JSON.parse(text));
  return {
    hash: j.hash,
    document: {
      id: j.id,
      summary: j.summary,
      content: j.content,
      tags: j.tags,
      entities: j.entities,
      source: j.source,
      createdAt: j.created_at,
      updatedAt: j.updated_at,
      accessCount: j.access_count,
      lastAccess: j.last_access ?? undefined,
      turnIds: j.turn_ids,
    },
    vector: j.vector
      ? { fingerprint: j.vector.fingerprint, vector: decodeVector(j.vector.data) }
      : undefined,
  };
}

/** Ids of every document file in `dir`. */
export async function listDocIds(dir: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && entry.name.endsWith(".json")) {
      const id = entry.name.slice(0, -5);
      if (ID.test(id)) ids.push(id);
    }
  }
  return ids;
}

/** Remove a document file; false when it was not there. */
export async function removeDocFile(dir: string, id: string): Promise<boolean> {
  try {
    await Deno.remove(docPath(dir, id));
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** sha256 hex of the normalised content: the de-duplication key. */
export async function contentHash(content: string): Promise<string> {
  const normal = content.replace(/\s+/g, " ").trim();
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(normal));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const SUMMARY_CHARS = 200;

/** The first SUMMARY_CHARS characters of `content`, on one line. */
export function summarize(content: string): string {
  const flat = content.replace(/\s+/g, " ").trim();
  return flat.length <= SUMMARY_CHARS ? flat : `${flat.slice(0, SUMMARY_CHARS - 1)}…`;
}

/** A new document id: its creation time (sortable) and a random suffix. */
export function newDocId(createdAt: number): string {
  return `d${createdAt.toString(36)}_${crypto.randomUUID().slice(0, 8)}`;
}

/** A new document of `content` (already trimmed), created `now` unless it says otherwise. */
export function newDocument(doc: NewDocument, content: string, now: number): MemoryDocument {
  return {
    id: newDocId(doc.createdAt ?? now),
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

/** `doc` with forgotten names blanked out of its content, summary, tags and entities. */
export function redactNew(doc: NewDocument, redactor: TextRedactor): NewDocument {
  const texts = [doc.content, doc.summary ?? "", ...doc.tags ?? [], ...doc.entities ?? []];
  if (!texts.some((t) => redactor.mentions(t))) return doc;
  return {
    ...doc,
    content: redactor.redact(doc.content),
    summary: doc.summary === undefined ? undefined : redactor.redact(doc.summary),
    tags: doc.tags?.map((t) => redactor.redact(t)),
    entities: doc.entities?.filter((e) => !redactor.mentions(e)),
  };
}
