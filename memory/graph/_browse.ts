/**
 * The memory view's reads of the graph: facts filtered by the types of their entities and by
 * time (true at an instant, changed since one), every version of one fact, and the entity types
 * with their counts. Unlike recall, these reach closed and deleted facts too.
 */
import {
  type GraphEntityType,
  type GraphFilter,
  type GraphRecall,
  HomeAgentError,
} from "../../core/mod.ts";
import { type GraphSql } from "./_rows.ts";
import { entitiesByIds, keywordSeeds } from "./_recall.ts";
import { isSingleValued } from "./schema.ts";

/**
 * Facts matching `filter`, newest change first, with the entities they touch (and the keyword
 * seeds). Without a time bound only open, active facts count; `validAt` adds the facts closed
 * since (true then), `changedSince` the facts closed or deleted since.
 */
export function browse(g: GraphSql, filter: GraphFilter): GraphRecall {
  const keywords = (filter.keywords ?? []).filter((k) => k.trim() !== "");
  const seeds = keywords.length > 0 ? keywordSeeds(g, keywords) : undefined;
  if (seeds?.length === 0) return { entities: [], relations: [] };
  const timeless = filter.validAt === undefined && filter.changedSince === undefined;
  const rows = g.all(
    `select r.id, r.source_id, r.target_id from relations r
       join entities s on s.id = r.source_id join entities t on t.id = r.target_id
     where (?1 is null or r.source_id in (select value from json_each(?1))
              or r.target_id in (select value from json_each(?1)))
       and (?2 is null or s.type in (select value from json_each(?2))
              or t.type in (select value from json_each(?2)))
       and (?3 is null or (r.status = 'active' and r.valid_from <= ?3
              and (r.valid_to is null or r.valid_to > ?3)))
       and (?4 is null or r.updated_at >= ?4 or r.created_at >= ?4)
       and (?5 = 0 or (r.status = 'active' and r.valid_to is null))
     order by max(r.updated_at, r.created_at) desc, r.id desc limit ?6`,
    seeds ? JSON.stringify(seeds) : null,
    filter.types?.length ? JSON.stringify(filter.types) : null,
    filter.validAt === undefined ? null : BigInt(Math.trunc(filter.validAt)),
    filter.changedSince === undefined ? null : BigInt(Math.trunc(filter.changedSince)),
    timeless ? 1n : 0n,
    BigInt(filter.limit ?? 150),
  );
  const touched = new Set<number>(seeds ?? []);
  for (const row of rows) touched.add(Number(row.source_id)).add(Number(row.target_id));
  return {
    entities: entitiesByIds(g, [...touched]).sort((a, b) => b.mentions - a.mentions),
    relations: g.relations(rows.map((row) => Number(row.id))),
  };
}

/**
 * Every version of fact `id`, oldest first: the facts of its subject and predicate (and, for a
 * predicate that holds many values, of its object too), closed and deleted ones included.
 */
export function versionIds(g: GraphSql, id: number): number[] {
  const row = g.get("select source_id, target_id, type from relations where id = ?", BigInt(id));
  if (!row) throw new HomeAgentError("graph_not_found", `No fact with id ${id} in memory`);
  const single = isSingleValued(String(row.type));
  return g.all(
    `select id from relations where source_id = ?1 and type = ?2 and (?3 = 1 or target_id = ?4)
     order by valid_from, id limit 500`,
    BigInt(Number(row.source_id)),
    String(row.type),
    single ? 1n : 0n,
    BigInt(Number(row.target_id)),
  ).map((r) => Number(r.id));
}

/** The entity types of the active entities, most used first. */
export function entityTypes(g: GraphSql): GraphEntityType[] {
  return g.all(
    `select type, count(*) as n from entities where status = 'active'
     group by type order by n desc, type limit 100`,
  ).map((row) => ({ type: String(row.type), entities: Number(row.n) }));
}
