/**
 * Recall from the graph database: seeds (exact name or alias, trigram FTS for keywords of three
 * characters or more, name prefix for shorter ones, plus vector seeds from the caller), then a
 * bounded breadth-first walk over active, open relations with a recursive CTE, both directions.
 */
import type { GraphEntity, GraphRecall } from "../../core/mod.ts";
import { type GraphSql, toEntity } from "./_rows.ts";
import { ENTITY_COLUMNS } from "./_rows.ts";
import { normalizeName } from "./schema.ts";

/** Bounds of one walk. */
export interface WalkOptions {
  depth: number;
  limit: number;
  /** Most entities the walk visits (the CTE's LIMIT); default 256. */
  maxNodes?: number;
  /** Only walk into entities of these types. */
  types?: readonly string[];
}

const SEEDS_PER_KEYWORD = 5;
const MAX_KEYWORDS = 16;

/** Entity ids matching `keywords`, best first (exact before fuzzy, then most mentioned). */
export function keywordSeeds(g: GraphSql, keywords: readonly string[]): number[] {
  const seeds: number[] = [];
  const add = (rows: Record<string, unknown>[]) => {
    for (const row of rows) if (!seeds.includes(Number(row.id))) seeds.push(Number(row.id));
  };
  for (const keyword of keywords.slice(0, MAX_KEYWORDS)) {
    if (keyword.trim() === "") continue;
    const norm = normalizeName(keyword);
    add(g.all(
      `select id from entities where norm = ?1 and status = 'active'
       union select a.entity_id as id from entity_aliases a join entities e on e.id = a.entity_id
         where a.norm = ?1 and e.status = 'active'`,
      norm,
    ));
    if ([...norm].length >= 3) {
      add(g.all(
        `select e.id from entities_fts f join entities e on e.id = f.rowid
         where entities_fts match ? and e.status = 'active' order by e.mentions desc limit ?`,
        `"${norm.replaceAll('"', '""')}"`,
        BigInt(SEEDS_PER_KEYWORD),
      ));
    } else {
      add(g.all(
        `select id from entities where norm > ? and norm < ? and status = 'active'
         order by mentions desc limit ?`,
        norm,
        `${norm}\u{10ffff}`,
        BigInt(SEEDS_PER_KEYWORD),
      ));
    }
  }
  return seeds;
}

/**
 * Breadth-first from `seeds` (depth 0) over active open relations; id → depth reached. The
 * walk of a recursive CTE with UNION and a LIMIT: (id, depth) rows each queued once, taken in
 * queue order, a taken row below `depth` queuing its relations' targets then their sources
 * (each in id order), the first `maxNodes` rows kept. The CTE expanded every row it took (each
 * of ~256 queued ~20 more, ~7 ms at 1M relations); here a row is expanded only while fewer
 * than `maxNodes` are queued, which keeps the same rows (~0.5 ms).
 */
export function walk(
  g: GraphSql,
  seeds: readonly number[],
  options: WalkOptions,
): Map<number, number> {
  const max = options.maxNodes ?? 256;
  const rows: { id: number; depth: number }[] = [];
  const queued = new Set<number>();
  const queue = (id: number, depth: number) => {
    const key = depth * 2 ** 40 + id; // ids are rowids, far below 2^40
    if (queued.has(key)) return;
    queued.add(key);
    rows.push({ id, depth });
  };
  for (const id of seeds) queue(id, 0);
  const next = neighbours(g, options.types);
  for (let i = 0; i < rows.length && rows.length < max; i++) {
    const { id, depth } = rows[i]!;
    if (depth >= options.depth) continue;
    for (const n of next(id)) {
      queue(n, depth + 1);
      if (rows.length >= max) break; // rows past `max` are dropped below anyway
    }
  }
  const reached = new Map<number, number>();
  for (const { id, depth } of rows.slice(0, max)) {
    reached.set(id, Math.min(depth, reached.get(id) ?? Infinity));
  }
  return reached;
}

/** The targets of `id`'s active open relations, then their sources (of `types` only). */
function neighbours(g: GraphSql, types?: readonly string[]): (id: number) => number[] {
  const typed = types !== undefined;
  const of = types && JSON.stringify(types);
  const step = (next: string, via: string) =>
    g.sql(
      `select r.${next} as id from relations r
       ${
        typed
          ? `join entities n on n.id = r.${next} and n.type in (select value from json_each(?2))`
          : ""
      }
       where r.${via} = ?1 and r.status = 'active' and r.valid_to is null order by r.${next}`,
    );
  const targets = step("target_id", "source_id");
  const sources = step("source_id", "target_id");
  const ids = (rows: Record<string, unknown>[]) => rows.map((row) => Number(row.id));
  return (id) => {
    const params = typed ? [BigInt(id), of!] : [BigInt(id)];
    return [...ids(targets.all(...params)), ...ids(sources.all(...params))];
  };
}

/**
 * The recall around `reached`: relations with both ends reached, ranked by hops from a seed,
 * then by the best-ranked seed they touch (`seeds` best first), then confidence, then newest
 * first; the entities they touch (seeds first).
 */
export function around(
  g: GraphSql,
  reached: Map<number, number>,
  limit: number,
  seeds: readonly number[] = [],
): GraphRecall {
  if (reached.size === 0) return { entities: [], relations: [] };
  const ids = JSON.stringify([...reached.keys()]);
  // `+` keeps the planner off a (target, source) probe per pair of reached ids (n² lookups):
  // walk each reached source's covering index and test the target against the set instead.
  const candidates = g.all(
    `select r.id, r.source_id, r.target_id, r.confidence from relations r
     where r.source_id in (select value from json_each(?1))
       and +r.target_id in (select value from json_each(?1))
       and r.status = 'active' and r.valid_to is null`,
    ids,
  );
  const seedRank = new Map(seeds.map((id, rank) => [id, rank]));
  // Each row's sort keys once, not in every comparison (a few hundred rows, ~9 compares each).
  const keyed = candidates.map((row) => {
    const source = Number(row.source_id);
    const target = Number(row.target_id);
    return {
      id: Number(row.id),
      source,
      target,
      hop: Math.min(reached.get(source)!, reached.get(target)!),
      rank: Math.min(seedRank.get(source) ?? Infinity, seedRank.get(target) ?? Infinity),
      confidence: Number(row.confidence),
    };
  });
  keyed.sort((a, b) =>
    a.hop - b.hop || (a.rank - b.rank || 0) || b.confidence - a.confidence || b.id - a.id
  );
  const picked = keyed.slice(0, limit);
  const relations = g.relations(picked.map((row) => row.id));
  const touched = new Set<number>([...reached].filter(([, d]) => d === 0).map(([id]) => id));
  for (const row of picked) touched.add(row.source).add(row.target);
  const entities = entitiesByIds(g, [...touched])
    .sort((a, b) => reached.get(a.id)! - reached.get(b.id)! || b.mentions - a.mentions);
  return { entities, relations };
}

/** Without keywords: the most mentioned entities and the newest active facts. */
export function overview(g: GraphSql, limit: number): GraphRecall {
  const entities = g.all(
    `select ${ENTITY_COLUMNS} from entities where status = 'active'
     order by mentions desc, updated_at desc limit 10`,
  ).map(toEntity);
  const ids = g.all(
    `select id from relations where status = 'active' and valid_to is null
     order by created_at desc, id desc limit ?`,
    BigInt(limit),
  ).map((row) => Number(row.id));
  return { entities, relations: g.relations(ids) };
}

/** Entities by id (any order). */
export function entitiesByIds(g: GraphSql, ids: readonly number[]): GraphEntity[] {
  if (ids.length === 0) return [];
  return g.all(
    `select ${ENTITY_COLUMNS} from entities where id in (select value from json_each(?))`,
    JSON.stringify(ids),
  ).map(toEntity);
}
