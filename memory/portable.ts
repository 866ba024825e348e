/**
 * `memory export FILE.jsonl` / `memory import FILE|DIR`: every tier of memory as JSON lines
 * (memory/cli/_records.ts), in a stable order so an export of a restored home equals the
 * export it came from. Vectors are not exported: they belong to a space and are recomputed.
 * Version 2 is written; version 1 files (documents and facts) still import as they did.
 */
import { join } from "node:path";
import type { ContextEvent, KnowledgeBase, MemoryDocument, Triple } from "../core/mod.ts";
import type { DocStore } from "./docs/store.ts";
import type { GraphDB } from "./graph/db.ts";
import type { MediaTier } from "./media/store.ts";
import { exportMedia, importMedia, type MediaSink, verifyMedia } from "./_portable_media.ts";
import {
  FORMAT,
  type LineOf,
  linesOf,
  type ParsedExport,
  readExport,
} from "./_portable_records.ts";
import * as map from "./_portable_map.ts";

/** The stores an export reads and an import writes; context and knowledge are optional. */
export interface PortableStores {
  documents: DocStore;
  graph: GraphDB;
  /** The working window; without `insert` (a read-only view) an import leaves it alone. */
  context?: {
    events(): readonly ContextEvent[];
    insert?(event: ContextEvent): void;
    commit?(): Promise<void>;
  };
  knowledge?: Pick<KnowledgeBase, "list" | "read" | "create">;
  /** Images as blocks; exported with their bytes (streamed, never held in the snapshot). */
  media?: MediaTier;
}

/** What an export wrote, tier by tier. */
export interface PortableCounts {
  entities: number;
  facts: number;
  documents: number;
  context: number;
  knowledge: number;
  tombstones: number;
  /** Media blocks (present when the media tier took part). */
  media?: number;
}

/** Everything an export holds, read from the stores (for the JSON lines and the Markdown). */
export interface MemorySnapshot {
  graph: ReturnType<GraphDB["dump"]>;
  documents: MemoryDocument[];
  context: ContextEvent[];
  knowledge: { name: string; content: string }[];
}

/** Read every tier, in the order an export writes them. */
export async function snapshotMemory(stores: PortableStores): Promise<MemorySnapshot> {
  const documents: MemoryDocument[] = [];
  for await (const d of stores.documents.all()) documents.push(d);
  documents.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  const knowledge: { name: string; content: string }[] = [];
  for (const entry of await stores.knowledge?.list() ?? []) {
    knowledge.push({ name: entry.name, content: await stores.knowledge!.read(entry.name) });
  }
  return {
    graph: stores.graph.dump(),
    documents,
    context: [...stores.context?.events() ?? []],
    knowledge,
  };
}

/** Write every tier to `path` (replacing it) as version 2 JSON lines; returns the counts. */
export async function exportMemory(stores: PortableStores, path: string): Promise<PortableCounts> {
  return await writeExport(await snapshotMemory(stores), path, stores.media);
}

/**
 * Write `snapshot` (and the blocks of `media`, when given, each also handed to `sink`) to `path`
 * as version 2 JSON lines.
 */
export async function writeExport(
  snapshot: MemorySnapshot,
  path: string,
  media?: MediaTier,
  sink?: MediaSink,
): Promise<PortableCounts> {
  const { graph } = snapshot;
  const lines = [
    { type: FORMAT, version: 2, exported_at: new Date().toISOString() },
    ...graph.tombstones.keys.map(map.keyLine),
    ...graph.tombstones.tombstones.map(map.tombstoneLine),
    ...graph.entities.map(map.entityLine),
    ...graph.facts.map(map.factLine),
    ...snapshot.documents.map(map.documentLine),
    ...snapshot.context.map(map.contextLine),
    ...snapshot.knowledge.map((k) => ({ type: "knowledge", name: k.name, content: k.content })),
  ];
  const file = await Deno.open(path, { write: true, create: true, truncate: true, mode: 0o600 });
  const writer = file.writable.getWriter();
  const encoder = new TextEncoder();
  const write = (line: unknown) => writer.write(encoder.encode(JSON.stringify(line) + "\n"));
  let blocks: number | undefined;
  try {
    for (const line of lines) await write(line);
    if (media) blocks = await exportMedia(media, write, sink);
  } finally {
    await writer.close();
  }
  return {
    ...(blocks === undefined ? {} : { media: blocks }),
    entities: graph.entities.length,
    facts: graph.facts.length,
    documents: snapshot.documents.length,
    context: snapshot.context.length,
    knowledge: snapshot.knowledge.length,
    tombstones: graph.tombstones.tombstones.length,
  };
}

/** What an import wrote, and what it found already stored and skipped. */
export interface ImportCounts {
  documents: number;
  facts: number;
  skipped: { documents: number; facts: number } & Partial<Record<string, number>>;
  entities?: number;
  context?: number;
  knowledge?: number;
  tombstones?: number;
  media?: number;
}

/**
 * Read an export (a file, or the `memory.jsonl` of an export folder) into the stores. The whole
 * file is validated first (a bad line is named by its number and nothing is written).
 * Documents, then the graph, are written all or nothing: when the graph fails, the documents
 * just added are taken back. Version 2 restores exactly (ids, counters, validity, deleted
 * facts, tombstones), then the context window and knowledge. What is already stored is
 * skipped and counted, so importing twice changes nothing.
 */
export async function importMemory(stores: PortableStores, path: string): Promise<ImportCounts> {
  const file = (await Deno.stat(path)).isDirectory ? join(path, "memory.jsonl") : path;
  const parsed = await readExport(file);
  return parsed.version === 1 ? await importV1(stores, parsed) : await importV2(stores, parsed);
}

async function importV1(stores: PortableStores, parsed: ParsedExport): Promise<ImportCounts> {
  const results = await stores.documents.insertMany(
    linesOf(parsed, "document").map((d) => ({
      content: d.content,
      summary: d.summary,
      tags: d.tags,
      entities: d.entities,
      source: d.source,
      createdAt: d.created_at,
      turnIds: d.turn_ids,
    })),
  );
  const added = results.filter((r) => !r.duplicate);
  const facts = linesOf(parsed, "fact").sort((a, b) => a.valid_from - b.valid_from);
  let skippedFacts = 0;
  try {
    if (facts.length > 0) {
      skippedFacts = (await stores.graph.importFacts(facts.map(v1Triple))).skipped;
    }
  } catch (error) {
    for (const r of added) await stores.documents.remove(r.id);
    throw error;
  }
  return {
    documents: added.length,
    facts: facts.length - skippedFacts,
    skipped: { documents: results.length - added.length, facts: skippedFacts },
  };
}

function v1Triple(f: LineOf<"fact">): Triple {
  return {
    subject: f.subject,
    subjectType: f.subject_type,
    predicate: f.predicate,
    object: f.object,
    objectType: f.object_type,
    confidence: f.confidence,
    validFrom: f.valid_from,
    sentence: f.sentence,
    sessionId: f.session_id,
    turnIds: f.turn_ids,
  };
}

async function importV2(stores: PortableStores, parsed: ParsedExport): Promise<ImportCounts> {
  const mediaLines = linesOf(parsed, "media");
  if (stores.media) await verifyMedia(mediaLines);
  const added: string[] = [];
  let skippedDocs = 0;
  for (const line of linesOf(parsed, "document")) {
    const doc = map.toDocument(line);
    if (
      await stores.documents.get(doc.id) ||
      await stores.documents.rewrite(doc.id, doc) === "removed"
    ) {
      skippedDocs++;
    } else added.push(doc.id);
  }
  let graph;
  try {
    graph = await stores.graph.load(map.toGraphDump(parsed));
  } catch (error) {
    for (const id of added) await stores.documents.remove(id);
    throw error;
  }
  const context = await importContext(stores, linesOf(parsed, "context_event"));
  const knowledge = await importKnowledge(stores, linesOf(parsed, "knowledge"));
  const media = stores.media && mediaLines.length > 0
    ? await importMedia(stores.media, mediaLines)
    : undefined;
  return {
    ...(media ? { media: media.added } : {}),
    documents: added.length,
    facts: graph.facts,
    entities: graph.entities,
    context: context.added,
    knowledge: knowledge.added,
    tombstones: linesOf(parsed, "tombstone").length,
    skipped: {
      documents: skippedDocs,
      facts: graph.skipped.facts,
      entities: graph.skipped.entities,
      context: context.skipped,
      knowledge: knowledge.skipped,
      ...(media ? { media: media.skipped } : {}),
    },
  };
}

async function importContext(
  stores: PortableStores,
  lines: LineOf<"context_event">[],
): Promise<{ added: number; skipped: number }> {
  const context = stores.context;
  if (!context?.insert || lines.length === 0) return { added: 0, skipped: lines.length };
  const known = new Set(context.events().map((e) => e.id));
  const fresh = lines.filter((l) => !known.has(l.id));
  for (const line of fresh) context.insert(map.toEvent(line));
  await context.commit?.();
  return { added: fresh.length, skipped: lines.length - fresh.length };
}

async function importKnowledge(
  stores: PortableStores,
  lines: LineOf<"knowledge">[],
): Promise<{ added: number; skipped: number }> {
  if (!stores.knowledge || lines.length === 0) return { added: 0, skipped: lines.length };
  const known = new Set((await stores.knowledge.list()).map((e) => e.name));
  const fresh = lines.filter((l) => !known.has(l.name));
  for (const line of fresh) await stores.knowledge.create(line.name, line.content);
  return { added: fresh.length, skipped: lines.length - fresh.length };
}
