/**
 * The lines of a memory export (JSON Lines, one record a line after a header), checked with
 * zod on import. Version 2 carries every tier exactly — entities, facts (closed and deleted
 * ones too), documents with their counters, the context window, knowledge entries and the
 * tombstones of forgotten names, and media blocks with their bytes; version 1 files (documents and facts only) still import.
 */
import { z } from "zod";

/** The header's `type`. */
export const FORMAT = "homeagent-memory";

export const Header = z.lazy(() =>
  z.object({
    type: z.literal(FORMAT),
    version: z.union([z.literal(1), z.literal(2)]),
  })
);

const Strings = z.lazy(() => z.array(z.string()));

export const EntityLine = z.lazy(() =>
  z.object({
    type: z.literal("entity"),
    name: z.string().min(1).max(200),
    entity_type: z.string().min(1),
    mentions: z.number().int().min(0),
    aliases: Strings.default([]),
    status: z.enum(["active", "deleted"]),
    created_at: z.number(),
    updated_at: z.number(),
  })
);

/** A fact: version 2 has every field; version 1 lines lack status, mentions and times. */
export const FactLine = z.lazy(() =>
  z.object({
    type: z.literal("fact"),
    subject: z.string().min(1),
    subject_type: z.string().optional(),
    predicate: z.string().min(1),
    object: z.string().min(1),
    object_type: z.string().optional(),
    confidence: z.number().min(0).max(1).optional(),
    mentions: z.number().int().min(0).optional(),
    status: z.enum(["active", "deleted"]).optional(),
    valid_from: z.number(),
    valid_to: z.number().optional(),
    sentence: z.string().optional(),
    sentences: Strings.optional(),
    session_id: z.string().optional(),
    turn_ids: Strings.default([]),
    created_at: z.number().optional(),
    updated_at: z.number().optional(),
  })
);

/** A document: version 2 has its id and counters; version 1 lines only its words and time. */
export const DocumentLine = z.lazy(() =>
  z.object({
    type: z.literal("document"),
    id: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/).optional(),
    summary: z.string(),
    content: z.string().min(1),
    tags: Strings.default([]),
    entities: Strings.default([]),
    source: z.string(),
    created_at: z.number(),
    updated_at: z.number().optional(),
    access_count: z.number().int().min(0).optional(),
    last_access: z.number().optional(),
    turn_ids: Strings.default([]),
  })
);

export const ContextLine = z.lazy(() =>
  z.object({
    type: z.literal("context_event"),
    id: z.string().min(1).max(200),
    role: z.enum(["user", "agent", "cold_storage"]),
    source: z.string(),
    channel: z.string(),
    input: z.string().optional(),
    response: z.string().optional(),
    tools: z.array(z.object({ name: z.string(), output: z.string() })).optional(),
    turn_ids: Strings.optional(),
    exchange: z.string().optional(),
    timestamp: z.number(),
    no_memory: z.boolean().optional(),
  })
);

export const KnowledgeLine = z.lazy(() =>
  z.object({
    type: z.literal("knowledge"),
    name: z.string().min(1).max(200),
    content: z.string(),
  })
);

export const TombstoneKeyLine = z.lazy(() =>
  z.object({
    type: z.literal("tombstone_key"),
    id: z.number().int(),
    key: z.string().regex(/^[A-Za-z0-9+/=]{20,100}$/),
  })
);

export const TombstoneLine = z.lazy(() =>
  z.object({
    type: z.literal("tombstone"),
    key_id: z.number().int(),
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    length: z.number().int().min(1),
    created_at: z.number(),
    quick: z.number().int().min(0).max(2 ** 32 - 1).optional(),
  })
);

/** A media block with its bytes in base64, beside the sentences and turns it came with. */
export const MediaLine = z.lazy(() =>
  z.object({
    type: z.literal("media"),
    digest: z.string().regex(/^[0-9a-f]{64}$/),
    mime: z.string(),
    created_at: z.number(),
    sentences: Strings.default([]),
    turn_ids: Strings.default([]),
    data: z.string(),
  })
);

/** Any record line. */
export const Line = z.lazy(() =>
  z.discriminatedUnion("type", [
    EntityLine,
    FactLine,
    DocumentLine,
    ContextLine,
    KnowledgeLine,
    TombstoneKeyLine,
    TombstoneLine,
    MediaLine,
  ])
);

/** A parsed record line. */
export type Line = z.infer<typeof Line>;

/** The lines of one type. */
export type LineOf<T extends Line["type"]> = Extract<Line, { type: T }>;

/** A whole export, parsed: its version and every record by type, in file order. */
export interface ParsedExport {
  version: 1 | 2;
  lines: Line[];
}

/** Parse and validate a whole export file; throws naming the first bad line. */
export async function readExport(path: string): Promise<ParsedExport> {
  const text = await Deno.readTextFile(path);
  const lines: Line[] = [];
  let version: 1 | 2 | undefined;
  for (const [i, raw] of text.split("\n").entries()) {
    if (raw.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new SyntaxError(`${path}:${i + 1}: not JSON`);
    }
    if (version === undefined) {
      const header = Header.safeParse(value);
      if (!header.success) {
        throw new TypeError(`${path}:${i + 1}: not a HomeAgent memory export (missing header)`);
      }
      version = header.data.version;
      continue;
    }
    const parsed = Line.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new TypeError(`${path}:${i + 1}: ${issue.path.join(".") || "line"}: ${issue.message}`);
    }
    if (version === 1 && parsed.data.type !== "document" && parsed.data.type !== "fact") {
      throw new TypeError(`${path}:${i + 1}: a version 1 export holds documents and facts only`);
    }
    lines.push(parsed.data);
  }
  if (version === undefined) throw new TypeError(`${path}: empty, not a HomeAgent memory export`);
  return { version, lines };
}

/** The lines of `type`. */
export function linesOf<T extends Line["type"]>(parsed: ParsedExport, type: T): LineOf<T>[] {
  return parsed.lines.filter((l): l is LineOf<T> => l.type === type);
}
