/** Records of the stores ↔ lines of an export (snake_case fields, optional ones left out). */
import type { ContextEvent, MemoryDocument } from "../core/mod.ts";
import type { EntityRecord, FactRecord, GraphDump, TombstoneDump } from "./graph/db.ts";
import { type LineOf, linesOf, type ParsedExport } from "./_portable_records.ts";

export const keyLine = (k: TombstoneDump["keys"][number]) => ({
  type: "tombstone_key",
  id: k.id,
  key: k.key,
});

export const tombstoneLine = (t: TombstoneDump["tombstones"][number]) => ({
  type: "tombstone",
  key_id: t.keyId,
  hash: t.hash,
  length: t.length,
  created_at: t.createdAt,
  ...(t.quick === undefined ? {} : { quick: t.quick }),
});

export const entityLine = (e: EntityRecord) => ({
  type: "entity",
  name: e.name,
  entity_type: e.type,
  mentions: e.mentions,
  aliases: e.aliases,
  status: e.status,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

export const factLine = (f: FactRecord) => ({
  type: "fact",
  subject: f.subject,
  predicate: f.predicate,
  object: f.object,
  confidence: f.confidence,
  mentions: f.mentions,
  status: f.status,
  valid_from: f.validFrom,
  valid_to: f.validTo,
  session_id: f.sessionId,
  turn_ids: f.turnIds,
  sentences: f.sentences,
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

export const documentLine = (d: MemoryDocument) => ({
  type: "document",
  id: d.id,
  summary: d.summary,
  content: d.content,
  tags: d.tags,
  entities: d.entities,
  source: d.source,
  created_at: d.createdAt,
  updated_at: d.updatedAt,
  access_count: d.accessCount,
  last_access: d.lastAccess,
  turn_ids: d.turnIds,
});

export const contextLine = (e: ContextEvent) => ({
  type: "context_event",
  id: e.id,
  role: e.role,
  source: e.source,
  channel: e.channel,
  input: e.input,
  response: e.response,
  tools: e.tools,
  turn_ids: e.turnIds,
  exchange: e.exchange,
  timestamp: e.timestamp,
  no_memory: e.noMemory,
});

/** A version 2 document line as the document it was (an id is made for one without). */
export function toDocument(d: LineOf<"document">): MemoryDocument {
  return {
    id: d.id ?? `d${d.created_at.toString(36)}_${crypto.randomUUID().slice(0, 8)}`,
    summary: d.summary,
    content: d.content,
    tags: d.tags,
    entities: d.entities,
    source: d.source,
    createdAt: d.created_at,
    updatedAt: d.updated_at ?? d.created_at,
    accessCount: d.access_count ?? 0,
    ...(d.last_access === undefined ? {} : { lastAccess: d.last_access }),
    turnIds: d.turn_ids,
  };
}

/** A context line as the event it was. */
export function toEvent(l: LineOf<"context_event">): ContextEvent {
  const event: ContextEvent = {
    id: l.id,
    role: l.role,
    source: l.source,
    channel: l.channel,
    timestamp: l.timestamp,
  };
  if (l.input !== undefined) event.input = l.input;
  if (l.response !== undefined) event.response = l.response;
  if (l.tools !== undefined) event.tools = l.tools;
  if (l.turn_ids !== undefined) event.turnIds = l.turn_ids;
  if (l.exchange !== undefined) event.exchange = l.exchange;
  if (l.no_memory !== undefined) event.noMemory = l.no_memory;
  return event;
}

/** The graph part of an export: entities, facts, tombstones. */
export function toGraphDump(parsed: ParsedExport): GraphDump & { tombstones: TombstoneDump } {
  return {
    entities: linesOf(parsed, "entity").map((e) => ({
      name: e.name,
      type: e.entity_type,
      mentions: e.mentions,
      aliases: e.aliases,
      status: e.status,
      createdAt: e.created_at,
      updatedAt: e.updated_at,
    })),
    facts: linesOf(parsed, "fact").map((f) => ({
      subject: f.subject,
      predicate: f.predicate,
      object: f.object,
      confidence: f.confidence ?? 1,
      mentions: f.mentions ?? 1,
      status: f.status ?? "active",
      validFrom: f.valid_from,
      ...(f.valid_to === undefined ? {} : { validTo: f.valid_to }),
      ...(f.session_id === undefined ? {} : { sessionId: f.session_id }),
      turnIds: f.turn_ids,
      sentences: f.sentences ?? (f.sentence ? [f.sentence] : []),
      createdAt: f.created_at ?? f.valid_from,
      updatedAt: f.updated_at ?? f.created_at ?? f.valid_from,
    })),
    tombstones: {
      keys: linesOf(parsed, "tombstone_key").map((k) => ({ id: k.id, key: k.key })),
      tombstones: linesOf(parsed, "tombstone").map((t) => ({
        keyId: t.key_id,
        hash: t.hash,
        length: t.length,
        createdAt: t.created_at,
        ...(t.quick === undefined ? {} : { quick: t.quick }),
      })),
    },
  };
}
