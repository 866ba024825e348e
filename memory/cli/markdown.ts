/**
 * `memory export DIR`: the memory as Markdown a person can read, beside the `memory.jsonl` that
 * `memory import` restores exactly. One file per entity with its facts and their validity
 * times (entities/), one per document with YAML front matter (documents/), knowledge entries as
 * they are (knowledge/<name>/content.md), images beside the entities they are about
 * (entities/<entity>.media/, the rest in media/), the working window as a timeline (context.md),
 * and a README.md with the counts and an index.
 */
import { join } from "node:path";
import { HomeAgentError } from "../../core/mod.ts";
import type { EntityRecord, FactRecord } from "../graph/db.ts";
import { normalizeName } from "../graph/schema.ts";
import {
  type MemorySnapshot,
  type PortableCounts,
  type PortableStores,
  snapshotMemory,
  writeExport,
} from "../portable.ts";
import { mediaFiles } from "./_markdown_media.ts";

/** Export every tier into the new or empty folder `dir`; returns the counts. */
export async function exportMemoryDir(
  stores: PortableStores,
  dir: string,
): Promise<PortableCounts & { dir: string }> {
  await ensureEmpty(dir);
  const snapshot = await snapshotMemory(stores);
  const files = entityFiles(snapshot);
  // Each image is read (and verified) once, for its JSON line and its file beside the entity.
  const images = mediaFiles(snapshot, stemsOf(files), dir);
  const counts = await writeExport(snapshot, join(dir, "memory.jsonl"), stores.media, images.write);
  await writeMarkdown(snapshot, dir, images.byEntity);
  return { dir, ...counts };
}

async function ensureEmpty(dir: string): Promise<void> {
  try {
    for await (const _ of Deno.readDir(dir)) {
      throw new HomeAgentError(
        "export_not_empty",
        `Cannot export into "${dir}": the folder is not empty; choose a new one`,
      );
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  }
}

/** Write the Markdown side of an export of `snapshot` into `dir`. */
export async function writeMarkdown(
  snapshot: MemorySnapshot,
  dir: string,
  images: Map<string, string[]> = new Map(),
): Promise<void> {
  const { stringify } = await import("yaml"); // ~2 MB resident: loaded by an export, not by serve
  const { entities, facts } = snapshot.graph;
  const files = entityFiles(snapshot);
  await Deno.mkdir(join(dir, "entities"), { recursive: true });
  for (const entity of entities) {
    const norm = normalizeName(entity.name);
    await write(
      join(dir, "entities", files.get(norm)!),
      entityPage(entity, facts, files) + imageList(images.get(norm) ?? []),
    );
  }
  await Deno.mkdir(join(dir, "documents"), { recursive: true });
  for (const doc of snapshot.documents) {
    const front = stringify({
      id: doc.id,
      summary: doc.summary,
      source: doc.source,
      created: iso(doc.createdAt),
      updated: iso(doc.updatedAt),
      tags: doc.tags,
      entities: doc.entities,
      turn_ids: doc.turnIds,
      access_count: doc.accessCount,
      ...(doc.lastAccess === undefined ? {} : { last_access: iso(doc.lastAccess) }),
    });
    await write(join(dir, "documents", `${doc.id}.md`), `---\n${front}---\n\n${doc.content}\n`);
  }
  for (const k of snapshot.knowledge) {
    await Deno.mkdir(join(dir, "knowledge", k.name), { recursive: true });
    await write(join(dir, "knowledge", k.name, "content.md"), k.content);
  }
  await write(join(dir, "context.md"), contextPage(snapshot));
  await write(join(dir, "README.md"), readme(snapshot, files));
}

/** Normalised entity name → its page's file name. */
function entityFiles(snapshot: MemorySnapshot): Map<string, string> {
  return new Map(snapshot.graph.entities.map((e) => [normalizeName(e.name), entityFile(e.name)]));
}

function stemsOf(files: Map<string, string>): Map<string, string> {
  return new Map([...files].map(([name, file]) => [name, file.replace(/\.md$/, "")]));
}

/** The file of an entity: a readable slug and a short hash of its normalised name. */
export function entityFile(name: string): string {
  const slug = name.normalize("NFKC").replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "")
    .slice(0, 60) || "entity";
  return `${slug}-${fnv(normalizeName(name))}.md`;
}

function entityPage(e: EntityRecord, facts: FactRecord[], files: Map<string, string>): string {
  const norm = normalizeName(e.name);
  const link = (name: string) => {
    const file = files.get(normalizeName(name));
    return file ? `[${name}](${encodeURI(file)})` : name;
  };
  const lines = [`# ${e.name}`, "", `- type: ${e.type}`, `- mentioned ${e.mentions} times`];
  if (e.aliases.length > 0) lines.push(`- also called: ${e.aliases.join(", ")}`);
  lines.push(`- first seen ${day(e.createdAt)}, last changed ${day(e.updatedAt)}`);
  if (e.status === "deleted") lines.push("- retired (memory_delete_entity): kept for history");
  const out = facts.filter((f) => normalizeName(f.subject) === norm);
  const into = facts.filter((f) =>
    normalizeName(f.object) === norm && normalizeName(f.subject) !== norm
  );
  lines.push("", "## Facts", "", ...listed(out, (f) => `${f.predicate} → ${link(f.object)}`));
  if (into.length > 0) {
    lines.push(
      "",
      "## Named in",
      "",
      ...listed(into, (f) => `${link(f.subject)} —${f.predicate}→`),
    );
  }
  return lines.join("\n") + "\n";
}

function imageList(paths: string[]): string {
  if (paths.length === 0) return "";
  return ["", "## Images", "", ...paths.map((p) => `- ![${p}](${encodeURI(p)})`), ""].join("\n");
}

function listed(facts: FactRecord[], text: (f: FactRecord) => string): string[] {
  if (facts.length === 0) return ["- none"];
  return facts.flatMap((f) => {
    const when = f.validTo === undefined
      ? `since ${day(f.validFrom)}`
      : `${day(f.validFrom)} – ${day(f.validTo)} (no longer true)`;
    const marks = [when, f.confidence < 1 ? `confidence ${f.confidence.toFixed(2)}` : ""]
      .filter((m) => m !== "");
    const head = `- ${f.status === "deleted" ? "~~" : ""}${text(f)}${
      f.status === "deleted" ? "~~ (deleted)" : ""
    } · ${marks.join(" · ")}`;
    return [head, ...f.sentences.map((s) => `  > ${s.replace(/\n/g, " ")}`)];
  });
}

function contextPage(snapshot: MemorySnapshot): string {
  const lines = [
    "# Working window",
    "",
    "The recent conversation the agent still holds, oldest first.",
    "",
  ];
  for (const e of snapshot.context) {
    const words = [e.input, e.response].filter((t) => t !== undefined).join(" / ");
    lines.push(
      `- **${minute(e.timestamp)}** ${e.channel} (${e.role}): ${words.replace(/\n/g, " ")}`,
    );
  }
  if (snapshot.context.length === 0) lines.push("- empty");
  return lines.join("\n") + "\n";
}

function readme(snapshot: MemorySnapshot, files: Map<string, string>): string {
  const { entities, facts, tombstones } = snapshot.graph;
  return [
    "# HomeAgent memory",
    "",
    `Exported ${new Date().toISOString()}.`,
    "",
    `- ${entities.length} entities and ${facts.length} facts: entities/`,
    `- ${snapshot.documents.length} documents: documents/`,
    `- ${snapshot.knowledge.length} knowledge entries: knowledge/`,
    `- ${snapshot.context.length} events in the working window: context.md`,
    `- ${tombstones.tombstones.length} forgotten names, kept only as keyed hashes`,
    "",
    "`memory.jsonl` holds all of it; `homeagent memory import DIR` puts it back exactly.",
    "",
    "## Entities",
    "",
    ...entities.map((e) =>
      `- [${e.name}](entities/${encodeURI(files.get(normalizeName(e.name))!)})`
    ),
    "",
  ].join("\n");
}

async function write(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(path, text, { mode: 0o600 });
}

function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);
const minute = (ms: number) => iso(ms).slice(0, 16).replace("T", " ");
