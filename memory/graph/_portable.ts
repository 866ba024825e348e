/**
 * The graph's bulk paths: fast inserts of a known-clean graph (benchmarks), and the exact dump
 * and load of every entity and fact that `memory export` and `memory import` carry.
 */
import { withTransaction } from "../sqlite.ts";
import type { GraphSql } from "./_rows.ts";
import { DEFAULT_ENTITY_TYPE, displayName, normalizeName, normalizePredicate } from "./schema.ts";
import type { ForgottenNames } from "../forget/matcher.ts";

/** Rows for GraphDB.bulkEntities and bulkRelations (relations name entity ids). */
export interface BulkGraph {
  entities: { name: string; type?: string; mentions?: number }[];
  relations: { source: number; target: number; type: string; validFrom: number }[];
}

/** Insert `entities` in one transaction without de-duplication; their ids in order. */
export function bulkEntities(g: GraphSql, entities: BulkGraph["entities"]): number[] {
  const now = BigInt(g.now());
  return withTransaction(g.db, () => {
    const insert = g.sql(
      `insert into entities (name, norm, type, mentions, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?) returning id`,
    );
    return entities.map((e) =>
      Number(
        insert.get(
          displayName(e.name),
          normalizeName(e.name),
          e.type ?? DEFAULT_ENTITY_TYPE,
          BigInt(e.mentions ?? 1),
          now,
          now,
        )!.id,
      )
    );
  });
}

/** Insert `relations` between entity ids in one transaction, without superseding. */
export function bulkRelations(g: GraphSql, relations: BulkGraph["relations"]): void {
  const now = BigInt(g.now());
  withTransaction(g.db, () => {
    const insert = g.sql(
      `insert into relations (source_id, target_id, type, valid_from, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?)`,
    );
    for (const r of relations) {
      insert.run(BigInt(r.source), BigInt(r.target), r.type, BigInt(r.validFrom), now, now);
    }
  });
}

/** An entity as an export carries it. */
export interface EntityRecord {
  name: string;
  type: string;
  mentions: number;
  aliases: string[];
  status: "active" | "deleted";
  createdAt: number;
  updatedAt: number;
}

/** A fact (relation) as an export carries it: every field but ids, with all its sentences. */
export interface FactRecord {
  subject: string;
  predicate: string;
  object: string;
  confidence: number;
  mentions: number;
  status: "active" | "deleted";
  validFrom: number;
  validTo?: number;
  sessionId?: string;
  turnIds: string[];
  sentences: string[];
  createdAt: number;
  updatedAt: number;
}

/** The whole graph: entities by name, facts in time order (a stable order, for diffs). */
export interface GraphDump {
  entities: EntityRecord[];
  facts: FactRecord[];
}

/** Every entity and fact of the database, deleted ones too. */
export function dumpGraph(g: GraphSql): GraphDump {
  const entities = g.all(
    `select name, type, mentions, aliases, status, created_at, updated_at from entities
     order by norm`,
  ).map((r): EntityRecord => ({
    name: String(r.name),
    type: String(r.type),
    mentions: Number(r.mentions),
    aliases: String(r.aliases).split("\n").filter((a) => a !== "").sort(),
    status: r.status === "deleted" ? "deleted" : "active",
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  }));
  const facts = g.all(
    `select s.name as subject, r.type as predicate, t.name as object, r.confidence, r.mentions,
       r.status, r.valid_from, r.valid_to, r.session_id, r.turn_ids, r.created_at, r.updated_at,
       (select json_group_array(text) from (select se.text from relation_sentences rs
          join sentences se on se.id = rs.sentence_id where rs.relation_id = r.id
          order by se.text)) as sentences
     from relations r join entities s on s.id = r.source_id join entities t on t.id = r.target_id
     order by r.valid_from, r.created_at, s.norm, r.type, t.norm, r.id`,
  ).map((r): FactRecord => ({
    subject: String(r.subject),
    predicate: String(r.predicate),
    object: String(r.object),
    confidence: Number(r.confidence),
    mentions: Number(r.mentions),
    status: r.status === "deleted" ? "deleted" : "active",
    validFrom: Number(r.valid_from),
    ...(r.valid_to === null ? {} : { validTo: Number(r.valid_to) }),
    ...(r.session_id === null ? {} : { sessionId: String(r.session_id) }),
    turnIds: JSON.parse(String(r.turn_ids)) as string[],
    sentences: JSON.parse(String(r.sentences)) as string[],
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  }));
  return { entities, facts };
}

/** What loadGraph wrote, and what it found already stored (or forgotten) and skipped. */
export interface GraphLoad {
  entities: number;
  facts: number;
  skipped: { entities: number; facts: number };
  /** Ids of the entities inserted (to embed). */
  fresh: number[];
}

/**
 * Write `dump` exactly as it was exported, inside the caller's transaction: no superseding, no
 * reinforcing. An entity already here keeps its row (its missing aliases are added); a fact
 * already here (same subject, predicate, object and start) is skipped; whatever names a
 * forgotten entity is skipped.
 */
export function loadGraph(g: GraphSql, dump: GraphDump, forgotten: ForgottenNames): GraphLoad {
  const out: GraphLoad = { entities: 0, facts: 0, skipped: { entities: 0, facts: 0 }, fresh: [] };
  for (const e of dump.entities) {
    if ([e.name, ...e.aliases].some((n) => forgotten.mentions(n))) {
      out.skipped.entities++;
      continue;
    }
    const id = g.entityId(e.name);
    if (id === undefined) {
      out.fresh.push(insertEntity(g, e));
      out.entities++;
    } else {
      addAliases(g, id, e.aliases);
      out.skipped.entities++;
    }
  }
  for (const f of dump.facts) {
    if ([f.subject, f.predicate, f.object].some((n) => forgotten.mentions(n))) {
      out.skipped.facts++;
      continue;
    }
    const source = g.entityId(f.subject) ?? ensureEntity(g, f.subject, f.createdAt, out);
    const target = g.entityId(f.object) ?? ensureEntity(g, f.object, f.createdAt, out);
    const type = normalizePredicate(f.predicate);
    const same = g.get(
      `select 1 from relations where source_id = ? and target_id = ? and type = ?
         and valid_from = ? limit 1`,
      BigInt(source),
      BigInt(target),
      type,
      BigInt(f.validFrom),
    );
    if (same) {
      out.skipped.facts++;
      continue;
    }
    insertFact(g, { ...f, predicate: type }, source, target, forgotten);
    out.facts++;
  }
  return out;
}

function insertEntity(g: GraphSql, e: EntityRecord): number {
  const id = Number(
    g.get(
      `insert into entities (name, norm, type, mentions, status, aliases, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?) returning id`,
      displayName(e.name),
      normalizeName(e.name),
      e.type,
      BigInt(e.mentions),
      e.status,
      "",
      BigInt(e.createdAt),
      BigInt(e.updatedAt),
    )!.id,
  );
  addAliases(g, id, e.aliases);
  return id;
}

function ensureEntity(g: GraphSql, name: string, at: number, out: GraphLoad): number {
  const id = insertEntity(g, {
    name,
    type: DEFAULT_ENTITY_TYPE,
    mentions: 1,
    aliases: [],
    status: "active",
    createdAt: at,
    updatedAt: at,
  });
  out.fresh.push(id);
  out.entities++;
  return id;
}

function addAliases(g: GraphSql, id: number, aliases: readonly string[]): void {
  const row = g.get("select aliases from entities where id = ?", BigInt(id))!;
  const known = String(row.aliases).split("\n").filter((a) => a !== "");
  const added = aliases.filter((a) => !known.includes(a) && g.entityId(a) === undefined);
  if (added.length === 0) return;
  for (const alias of added) {
    g.run(
      "insert or ignore into entity_aliases (norm, entity_id) values (?, ?)",
      normalizeName(alias),
      BigInt(id),
    );
  }
  g.run(
    "update entities set aliases = ? where id = ?",
    [...known, ...added].join("\n"),
    BigInt(id),
  );
}

function insertFact(
  g: GraphSql,
  f: FactRecord,
  source: number,
  target: number,
  forgotten: ForgottenNames,
): void {
  const id = Number(
    g.get(
      `insert into relations (source_id, target_id, type, confidence, mentions, status,
         valid_from, valid_to, session_id, turn_ids, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
      BigInt(source),
      BigInt(target),
      f.predicate,
      f.confidence,
      BigInt(f.mentions),
      f.status,
      BigInt(f.validFrom),
      f.validTo === undefined ? null : BigInt(f.validTo),
      f.sessionId ?? null,
      JSON.stringify(f.turnIds),
      BigInt(f.createdAt),
      BigInt(f.updatedAt),
    )!.id,
  );
  for (const raw of f.sentences) {
    const text = forgotten.redact(raw);
    const row = g.get("select id from sentences where text = ?", text) ??
      g.get(
        `insert into sentences (text, session_id, turn_ids, created_at) values (?, ?, ?, ?)
         returning id`,
        text,
        f.sessionId ?? null,
        JSON.stringify(f.turnIds),
        BigInt(f.createdAt),
      )!;
    g.run(
      "insert or ignore into relation_sentences (relation_id, sentence_id) values (?, ?)",
      BigInt(id),
      BigInt(Number(row.id)),
    );
  }
}
