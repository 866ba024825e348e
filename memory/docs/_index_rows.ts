/**
 * The document index's rows as the store reads them: a row's counters, its body and its
 * content's words, mapped from SQLite's values in one place (memory/docs/_index_db.ts).
 */
import type { MemoryDocument } from "../../core/mod.ts";
import { contentWords } from "./_terms.ts";

/** One index row, without its vector. */
export interface IndexRow {
  id: string;
  hash: string;
  summary: string;
  source: string;
  createdAt: number;
  updatedAt: number;
  accessCount: number;
  lastAccess?: number;
  turnIds: string[];
  fingerprint?: string;
}

/** A document's body as the index keeps it (absent in rows not filled yet). */
export interface IndexBody {
  content: string;
  tags: string[];
  entities: string[];
}

/** A row's body with its content's analyzed words, when the row has them (_terms.ts). */
export interface IndexHit extends IndexRow, Partial<IndexBody> {
  words?: string[];
}

/** A selected row (with body columns, `terms` and `content_terms`) as a hit's row. */
export function rowHit(r: Record<string, unknown>): IndexHit {
  const words = contentWords(r);
  return { ...toRow(r), ...toBody(r), ...(words && { words }) };
}

/** The document of a row with its body; undefined for none or a row without one. */
export function rowDocument(row?: IndexRow & Partial<IndexBody>): MemoryDocument | undefined {
  if (row?.content === undefined) return undefined;
  return {
    id: row.id,
    summary: row.summary,
    content: row.content,
    tags: row.tags ?? [],
    entities: row.entities ?? [],
    source: row.source,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    accessCount: row.accessCount,
    lastAccess: row.lastAccess,
    turnIds: row.turnIds,
  };
}

function toBody(r: Record<string, unknown>): Partial<IndexBody> {
  if (typeof r.content !== "string") return {};
  return {
    content: r.content,
    tags: JSON.parse(String(r.tags ?? "[]")) as string[],
    entities: JSON.parse(String(r.entities ?? "[]")) as string[],
  };
}

export function toRow(r: Record<string, unknown>): IndexRow {
  return {
    id: String(r.id),
    hash: String(r.hash),
    summary: String(r.summary),
    source: String(r.source),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    accessCount: Number(r.access_count),
    lastAccess: r.last_access === null ? undefined : Number(r.last_access),
    turnIds: JSON.parse(String(r.turn_ids)) as string[],
    fingerprint: r.fingerprint === null ? undefined : String(r.fingerprint),
  };
}
