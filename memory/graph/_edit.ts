/**
 * The graph's maintenance operations, each inside the caller's transaction: merge two
 * entities, purge (erase) or retire (delete) one, edit an entity or a relation, introspect.
 */
import {
  type EntityPatch,
  type GraphIntrospection,
  HomeAgentError,
  type RelationPatch,
} from "../../core/mod.ts";
import { ENTITY_COLUMNS, type GraphSql, mergeTurnIds, reinforce, toEntity } from "./_rows.ts";
import { displayName, isSingleValued, normalizeName, normalizePredicate } from "./schema.ts";
import { upsertEntity } from "./_commit.ts";

/** Fold `drop` into `keep`; returns what moved and what was folded. */
export function mergeEntities(
  g: GraphSql,
  keepName: string,
  dropName: string,
): { keep: number; drop: number; moved: number; folded: number } {
  const keep = g.requireEntity(keepName), drop = g.requireEntity(dropName);
  if (keep === drop) {
    throw new HomeAgentError(
      "graph_conflict",
      `Cannot merge "${dropName}" into "${keepName}": they are already the same entity`,
    );
  }
  const [k, d] = [keep, drop].map((id) => g.entity(id)!);
  const now = BigInt(g.now());
  // A fact between the two would become a self-loop: it says nothing once they are one.
  let folded = g.run(
    `delete from relations where (source_id = ?1 and target_id = ?2) or (source_id = ?2 and target_id = ?1)`,
    BigInt(keep),
    BigInt(drop),
  );
  const moved = g.run(
    "update relations set source_id = ?, updated_at = ? where source_id = ?",
    BigInt(keep),
    now,
    BigInt(drop),
  ) +
    g.run(
      "update relations set target_id = ?, updated_at = ? where target_id = ?",
      BigInt(keep),
      now,
      BigInt(drop),
    );
  folded += foldDuplicates(g, keep);
  closeConflicts(g, keep);
  const aliases = [...new Set([...k!.aliases!, d!.name, ...d!.aliases!])]
    .filter((a) => normalizeName(a) !== normalizeName(k!.name));
  g.run("update entity_aliases set entity_id = ? where entity_id = ?", BigInt(keep), BigInt(drop));
  g.run("delete from entities where id = ?", BigInt(drop));
  g.run(
    "insert or replace into entity_aliases (norm, entity_id) values (?, ?)",
    normalizeName(d!.name),
    BigInt(keep),
  );
  g.run(
    `update entities set mentions = mentions + ?, aliases = ?, updated_at = ?, status = 'active',
       type = case when type = 'entity' then ? else type end where id = ?`,
    BigInt(d!.mentions),
    aliases.join("\n"),
    now,
    d!.type,
    BigInt(keep),
  );
  return { keep, drop, moved, folded };
}

/** Identical open relations of `entity` folded into the oldest; returns how many were removed. */
function foldDuplicates(g: GraphSql, entity: number): number {
  const groups = g.all(
    `select source_id, target_id, type, min(id) as keep_id from relations
     where (source_id = ?1 or target_id = ?1) and status = 'active' and valid_to is null
     group by source_id, target_id, type having count(*) > 1`,
    BigInt(entity),
  );
  let removed = 0;
  for (const group of groups) {
    const rows = g.all(
      `select id, confidence, mentions, turn_ids from relations where source_id = ? and target_id = ?
         and type = ? and status = 'active' and valid_to is null order by id`,
      int(group.source_id),
      int(group.target_id),
      String(group.type),
    );
    const [first, ...rest] = rows;
    let confidence = Number(first!.confidence), mentions = Number(first!.mentions);
    let turns: string[] = JSON.parse(String(first!.turn_ids));
    for (const row of rest) {
      confidence = reinforce(confidence, Number(row.confidence));
      mentions += Number(row.mentions);
      turns = mergeTurnIds(turns, JSON.parse(String(row.turn_ids)));
      g.run(
        `insert or ignore into relation_sentences (relation_id, sentence_id)
         select ?, sentence_id from relation_sentences where relation_id = ?`,
        int(first!.id),
        int(row.id),
      );
      removed += g.run("delete from relations where id = ?", int(row.id));
    }
    g.run(
      "update relations set confidence = ?, mentions = ?, turn_ids = ? where id = ?",
      confidence,
      BigInt(mentions),
      JSON.stringify(turns),
      int(first!.id),
    );
  }
  return removed;
}

/** After a merge, a single-valued predicate may hold two open values: keep the newest open. */
function closeConflicts(g: GraphSql, entity: number): void {
  const open = g.all(
    `select id, type, valid_from from relations where source_id = ? and status = 'active'
       and valid_to is null order by valid_from desc, id desc`,
    BigInt(entity),
  );
  const newest = new Map<string, number>();
  for (const row of open) {
    const type = String(row.type);
    if (!isSingleValued(type)) continue;
    const start = newest.get(type);
    if (start === undefined) newest.set(type, Number(row.valid_from));
    else g.run("update relations set valid_to = ? where id = ?", BigInt(start), int(row.id));
  }
}

/**
 * Erase an entity, its relations, the sentences left without a relation, and the media blocks
 * only those sentences carried (their blobs are swept by the media tier). A sentence that
 * carries media but never gave a fact is no purge's to erase.
 */
export function purgeEntity(g: GraphSql, name: string): { relations: number; sentences: number } {
  const id = BigInt(g.requireEntity(name));
  const touched = JSON.stringify(
    g.all(
      `select distinct rs.sentence_id as id from relation_sentences rs
       join relations r on r.id = rs.relation_id where r.source_id = ?1 or r.target_id = ?1`,
      id,
    ).map((r) => Number(r.id)),
  );
  const relations = g.run("delete from relations where source_id = ?1 or target_id = ?1", id);
  const blocks = JSON.stringify(
    g.all(
      `select dst_id as id from edges where src_kind = 'sentence' and dst_kind = 'block'
       and src_id in (select value from json_each(?))`,
      touched,
    ).map((r) => Number(r.id)),
  );
  const sentences = g.run(
    `delete from sentences where id not in (select sentence_id from relation_sentences)
     and (id in (select value from json_each(?))
          or id not in (select src_id from edges where src_kind = 'sentence'))`,
    touched,
  );
  g.run(
    "delete from edges where src_kind = 'sentence' and src_id not in (select id from sentences)",
  );
  g.run(
    `delete from blocks where id in (select value from json_each(?))
     and id not in (select dst_id from edges where dst_kind = 'block')`,
    blocks,
  );
  g.run("delete from entities where id = ?", id);
  return { relations, sentences };
}

/** Retire an entity: its active relations become `deleted`, the entity leaves recall. */
export function retireEntity(g: GraphSql, name: string): { relations: number } {
  const id = BigInt(g.requireEntity(name));
  const now = BigInt(g.now());
  const relations = g.run(
    `update relations set status = 'deleted', updated_at = ?2
     where (source_id = ?1 or target_id = ?1) and status = 'active'`,
    id,
    now,
  );
  g.run("update entities set status = 'deleted', updated_at = ? where id = ?", now, id);
  return { relations };
}

/** Rename (the old name stays an alias) or retype an entity; returns its id. */
export function editEntity(g: GraphSql, name: string, patch: EntityPatch): number {
  const id = g.requireEntity(name);
  const entity = g.entity(id)!;
  const now = BigInt(g.now());
  if (patch.name !== undefined && normalizeName(patch.name) !== normalizeName(entity.name)) {
    const clash = g.entityId(patch.name);
    if (clash !== undefined && clash !== id) {
      throw new HomeAgentError(
        "graph_conflict",
        `Cannot rename "${entity.name}" to "${patch.name}": that entity exists; use memory_merge`,
      );
    }
    const shown = displayName(patch.name);
    const aliases = [...new Set([...entity.aliases!, entity.name])]
      .filter((a) => normalizeName(a) !== normalizeName(shown));
    g.run("delete from entity_aliases where norm = ?", normalizeName(shown));
    g.run(
      "update entities set name = ?, norm = ?, aliases = ?, updated_at = ?, fingerprint = null where id = ?",
      shown,
      normalizeName(shown),
      aliases.join("\n"),
      now,
      BigInt(id),
    );
    g.run(
      "insert or replace into entity_aliases (norm, entity_id) values (?, ?)",
      normalizeName(entity.name),
      BigInt(id),
    );
  } else if (patch.name !== undefined) {
    g.run(
      "update entities set name = ?, updated_at = ? where id = ?",
      displayName(patch.name),
      now,
      BigInt(id),
    );
  }
  if (patch.type !== undefined) {
    const type = patch.type.trim().toLowerCase();
    if (type === "") throw new TypeError("Cannot set a blank entity type");
    g.run(
      "update entities set type = ?, updated_at = ?, fingerprint = null where id = ?",
      type,
      now,
      BigInt(id),
    );
  }
  return id;
}

/** Change one relation; throws `graph_not_found` for an unknown id. */
export function editRelation(g: GraphSql, id: number, patch: RelationPatch): void {
  const row = g.get("select id, valid_from from relations where id = ?", BigInt(id));
  if (!row) throw new HomeAgentError("graph_not_found", `No fact with id ${id} in memory`);
  const now = g.now();
  const sets: string[] = [], values: (string | number | bigint | null)[] = [];
  const set = (column: string, value: string | number | bigint | null) => {
    sets.push(`${column} = ?`);
    values.push(value);
  };
  if (patch.type !== undefined) set("type", normalizePredicate(patch.type));
  if (patch.target !== undefined) {
    set("target_id", BigInt(upsertEntity(g, patch.target, undefined, now, [])));
  }
  if (patch.confidence !== undefined) set("confidence", Math.min(1, Math.max(0, patch.confidence)));
  if (patch.status !== undefined) set("status", patch.status);
  if (patch.close) set("valid_to", BigInt(Math.max(now, Number(row.valid_from))));
  if (patch.reopen) {
    checkReopen(g, id);
    set("valid_to", null);
  }
  if (sets.length === 0) return;
  set("updated_at", BigInt(now));
  g.run(`update relations set ${sets.join(", ")} where id = ?`, ...values, BigInt(id));
}

/** A single-valued fact reopens only while no other value of it is open (two homes at once). */
function checkReopen(g: GraphSql, id: number): void {
  const row = g.get("select source_id, type from relations where id = ?", BigInt(id))!;
  if (!isSingleValued(String(row.type))) return;
  const other = g.get(
    `select t.name from relations r join entities t on t.id = r.target_id
     where r.source_id = ? and r.type = ? and r.id != ? and r.status = 'active'
       and r.valid_to is null limit 1`,
    int(row.source_id),
    String(row.type),
    BigInt(id),
  );
  if (other) {
    throw new HomeAgentError(
      "graph_conflict",
      `Cannot reopen fact ${id}: "${row.type}" holds one value and "${other.name}" is open now; close that first`,
    );
  }
}

/** Counts, top entities and newest facts. */
export function introspect(
  g: GraphSql,
  top: number,
  recent: number,
): Omit<GraphIntrospection, "recentRelations"> & { recentIds: number[] } {
  const counts = g.get(
    `select (select count(*) from entities where status = 'active') as entities,
       (select count(*) from relations where status = 'active' and valid_to is null) as active,
       (select count(*) from relations where status = 'active' and valid_to is not null) as closed,
       (select count(*) from relations where status = 'deleted') as deleted,
       (select count(*) from sentences) as sentences`,
  )!;
  const topEntities = g.all(
    `select ${ENTITY_COLUMNS} from entities where status = 'active'
     order by mentions desc, updated_at desc limit ?`,
    BigInt(top),
  ).map(toEntity);
  const recentIds = g.all(
    `select id from relations where status = 'active' and valid_to is null
     order by created_at desc, id desc limit ?`,
    BigInt(recent),
  ).map((r) => Number(r.id));
  return {
    entities: Number(counts.entities),
    relations: Number(counts.active),
    closed: Number(counts.closed),
    deleted: Number(counts.deleted),
    sentences: Number(counts.sentences),
    topEntities,
    recentIds,
  };
}

/** Every relation touching entity `id`, newest first. */
export function historyIds(g: GraphSql, id: number, limit: number): number[] {
  return g.all(
    `select id from relations where source_id = ?1 union select id from relations where target_id = ?1
     order by id desc limit ?2`,
    BigInt(id),
    BigInt(limit),
  ).map((r) => Number(r.id));
}

function int(value: unknown): bigint {
  return BigInt(Number(value));
}
