/**
 * `memory export FILE` / `memory import FILE`: the long-term tiers as JSON lines, one record a
 * line — a header, then documents, then facts (oldest first) — so a home can be backed up,
 * moved or inspected with ordinary tools. Vectors are not exported: they belong to a space and
 * are recomputed on import.
 */
import { z } from "zod";
import type { Triple } from "../core/mod.ts";
import type { DocStore } from "./docs/store.ts";
import type { GraphDB } from "./graph/db.ts";

const FORMAT = "homeagent-memory";

const Header = z.object({ type: z.literal(FORMAT), version: z.literal(1) });
const DocumentLine = z.object({
  type: z.literal("document"),
  summary: z.string(),
  content: z.string().min(1),
  tags: z.array(z.string()).default([]),
  entities: z.array(z.string()).default([]),
  source: z.string(),
  created_at: z.number(),
  turn_ids: z.array(z.string()).default([]),
});
const FactLine = z.object({
  type: z.literal("fact"),
  subject: z.string().min(1),
  subject_type: z.string().optional(),
  predicate: z.string().min(1),
  object: z.string().min(1),
  object_type: z.string().optional(),
  confidence: z.number().min(0).max(1).optional(),
  valid_from: z.number(),
  valid_to: z.number().optional(),
  sentence: z.string().optional(),
  session_id: z.string().optional(),
  turn_ids: z.array(z.string()).default([]),
});
const Line = z.discriminatedUnion("type", [DocumentLine, FactLine]);

/** The stores an export reads and an import writes. */
export interface PortableStores {
  documents: DocStore;
  graph: GraphDB;
}

/** What an export or import moved. */
export interface PortableCounts {
  documents: number;
  facts: number;
}

/** Write the documents and facts to `path` (replacing it); returns the counts. */
export async function exportMemory(stores: PortableStores, path: string): Promise<PortableCounts> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const writer = file.writable.getWriter();
  const encoder = new TextEncoder();
  const write = (value: unknown) => writer.write(encoder.encode(JSON.stringify(value) + "\n"));
  const counts = { documents: 0, facts: 0 };
  try {
    await write({ type: FORMAT, version: 1, exported_at: new Date().toISOString() });
    for await (const d of stores.documents.all()) {
      await write({
        type: "document",
        summary: d.summary,
        content: d.content,
        tags: d.tags,
        entities: d.entities,
        source: d.source,
        "created_at": d.createdAt,
        "turn_ids": d.turnIds,
      });
      counts.documents++;
    }
    for (const f of stores.graph.exportFacts()) {
      await write({
        type: "fact",
        subject: f.subject,
        "subject_type": f.subjectType,
        predicate: f.predicate,
        object: f.object,
        "object_type": f.objectType,
        confidence: f.confidence,
        "valid_from": f.validFrom,
        "valid_to": f.validTo,
        sentence: f.sentence,
        "session_id": f.sessionId,
        "turn_ids": f.turnIds ?? [],
      });
      counts.facts++;
    }
  } finally {
    await writer.close();
  }
  return counts;
}

/** What an import wrote, and what it found already stored and skipped. */
export interface ImportCounts extends PortableCounts {
  skipped: PortableCounts;
}

/**
 * Read an export into the stores, all or nothing. The whole file is validated first (a bad
 * line is reported with its number and nothing is written); documents are committed in one
 * transaction, then facts in one (in time order, so a later value of a single-valued fact
 * closes the earlier one again); if the facts fail, the documents added are taken back.
 * What is already stored — a document with the same content, a fact with the same subject,
 * predicate, object and start — is skipped and counted, so importing twice changes nothing.
 */
export async function importMemory(stores: PortableStores, path: string): Promise<ImportCounts> {
  const records = await readExport(path);
  const docs = records.filter((r) => r.type === "document");
  const results = await stores.documents.insertMany(docs.map((d) => ({
    content: d.content,
    summary: d.summary,
    tags: d.tags,
    entities: d.entities,
    source: d.source,
    createdAt: d.created_at,
    turnIds: d.turn_ids,
  })));
  const added = results.filter((r) => !r.duplicate);
  const facts = records.filter((r) => r.type === "fact").sort((a, b) =>
    a.valid_from - b.valid_from
  );
  let skippedFacts = 0;
  try {
    if (facts.length > 0) {
      skippedFacts = (await stores.graph.importFacts(facts.map(toTriple))).skipped;
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

function toTriple(f: z.infer<typeof FactLine>): Triple {
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

/** Parse and validate a whole export file; throws naming the first bad line. */
async function readExport(path: string): Promise<z.infer<typeof Line>[]> {
  const lines = (await Deno.readTextFile(path)).split("\n");
  const records: z.infer<typeof Line>[] = [];
  let header = false;
  for (const [i, text] of lines.entries()) {
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new SyntaxError(`${path}:${i + 1}: not JSON`);
    }
    if (!header) {
      if (!Header.safeParse(value).success) {
        throw new TypeError(`${path}:${i + 1}: not a HomeAgent memory export (missing header)`);
      }
      header = true;
      continue;
    }
    const parsed = Line.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new TypeError(`${path}:${i + 1}: ${issue.path.join(".") || "line"}: ${issue.message}`);
    }
    records.push(parsed.data);
  }
  return records;
}
