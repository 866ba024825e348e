/**
 * Recall from the graph database: seeds (exact name or alias, trigram FTS for keywords of three
 * characters or more, name prefix for shorter ones, plus vector seeds from the caller), then a
 * bounded breadth-first walk over active, open relations with a recursive CTE, both directions.
 */
import type { GraphEntity, GraphRecall } from "../../core/mod.ts";
import { type GraphSql, toEntity } from "./_rows.ts";
import { ENTITY_COLUMNS } from "./_rows.ts";
import { normalizeName } from "./schema.ts";
import type { RecallCache } from "./_recall_cache.ts";

/** Bounds of one walk. */
export interface WalkOptions {
  depth: number;
  limit: number;
  /** Most entities the walk visits (the CTE's LIMIT); default 256. */
  maxNodes?: number;
  /** Only walk into entities of these types. */
  types?: readonly string[];
  /** Recall's read caches, when fresh (an untyped walk reads relations through them). */
  cache?: RecallCache;
}

const SEEDS_PER_KEYWORD = 5;
const MAX_KEYWORDS = 16;

/** Entity ids matching `keywords`, best first (exact before fuzzy, then most mentioned). */
export function keywordSeeds(
  g: GraphSql,
  keywords: readonly string[],
  options: { cache?: RecallCache } = {},
): number[] {
  const seeds: number[] = [];
  for (const keyword of keywords.slice(0, MAX_KEYWORDS)) {
    if (keyword.trim() === "") continue;
    const found = options.cache?.seeds(keyword, () => seedsOf(g, keyword)) ?? seedsOf(g, keyword);
    for (const id of found) if (!seeds.includes(id)) seeds.push(id);
  }
  return seeds;
}

/** The entities `keyword` names (name or alias), then those it fuzzily matches, best first. */
function seedsOf(g: GraphSql, keyword: string): number[] {
  const norm = normalizeName(keyword);
  const exact = g.all(
    `select id from entities where norm = ?1 and status = 'active'
     union select a.entity_id as id from entity_aliases a join entities e on e.id = a.entity_id
       where a.norm = ?1 and e.status = 'active'`,
    norm,
  );
  const fuzzy = [...norm].length >= 3
    ? g.all(
      `select e.id from entities_fts f join entities e on e.id = f.rowid
       where entities_fts match ? and e.status = 'active' order by e.mentions desc limit ?`,
      `"${norm.replaceAll('"', '""')}"`,
      BigInt(SEEDS_PER_KEYWORD),
    )
    : g.all(
      `select id from entities where norm > ? and norm < ? and status = 'active'
       order by mentions desc limit ?`,
      norm,
      `${norm}\u{10ffff}`,
      BigInt(SEEDS_PER_KEYWORD),
    );
  return [...exact, ...fuzzy].map((row) => Number(row.id));
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
  const next = options.cache && options.types === undefined
    ? cachedNeighbours(options.cache)
    : neighbours(g, options.types);
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

/** neighbours() without types, read through recall's caches. */
function cachedNeighbours(cache: RecallCache): (id: number) => number[] {
  return (id) => [...cache.out([id]).get(id)!.map((e) => e.target), ...cache.sources(id)];
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

/** How around() ranks and reads. */
export interface AroundOptions {
  /** The seeds, best first: a relation touching a better one ranks first among equal hops. */
  seeds?: readonly number[];
  /** Recall's read caches, when fresh. */
  cache?: RecallCache;
}

/**
 * The recall around `reached`: relations with both ends reached, ranked by hops from a seed,
 * then by the best-ranked seed they touch, then confidence, then newest first; the entities
 * they touch (seeds first).
 */
export function around(
  g: GraphSql,
  reached: Map<number, number>,
  limit: number,
  options: AroundOptions = {},
): GraphRecall {
  if (reached.size === 0) return { entities: [], relations: [] };
  const { cache } = options;
  const seedRank = new Map((options.seeds ?? []).map((id, rank) => [id, rank]));
  // Each row's sort keys once, not in every comparison (a few hundred rows, ~9 compares each).
  const keyed = between(g, reached, cache).map((edge) => ({
    ...edge,
    hop: Math.min(reached.get(edge.source)!, reached.get(edge.target)!),
    rank: Math.min(seedRank.get(edge.source) ?? Infinity, seedRank.get(edge.target) ?? Infinity),
  }));
  keyed.sort((a, b) =>
    a.hop - b.hop || (a.rank - b.rank || 0) || b.confidence - a.confidence || b.id - a.id
  );
  const picked = keyed.slice(0, limit).map((row) => row.id);
  const relations = cache
    ? cache.relations(picked, (ids) => g.relations(ids))
    : g.relations(picked);
  const touched = new Set<number>([...reached].filter(([, d]) => d === 0).map(([id]) => id));
  for (const row of keyed.slice(0, limit)) touched.add(row.source).add(row.target);
  // In id order, as the uncached select returns them: the sort below keeps ties in it.
  const ids = [...touched].sort((a, b) => a - b);
  const entities =
    (cache ? cache.entities(ids, (ids) => entitiesByIds(g, ids)) : entitiesByIds(g, ids))
      .sort((a, b) => reached.get(a.id)! - reached.get(b.id)! || b.mentions - a.mentions);
  return { entities, relations };
}

/** The active open relations with both ends in `reached`, any order. */
function between(g: GraphSql, reached: Map<number, number>, cache?: RecallCache) {
  if (cache) {
    const edges: { id: number; source: number; target: number; confidence: number }[] = [];
    for (const [source, out] of cache.out(reached.keys())) {
      for (const e of out) if (reached.has(e.target)) edges.push({ ...e, source });
    }
    return edges;
  }
  // `+` keeps the planner off a (target, source) probe per pair of reached ids (n² lookups):
  // walk each reached source's covering index and test the target against the set instead.
  return g.all(
    `select r.id, r.source_id, r.target_id, r.confidence from relations r
     where r.source_id in (select value from json_each(?1))
       and +r.target_id in (select value from json_each(?1))
       and r.status = 'active' and r.valid_to is null`,
    JSON.stringify([...reached.keys()]),
  ).map((row) => ({
    id: Number(row.id),
    source: Number(row.source_id),
    target: Number(row.target_id),
    confidence: Number(row.confidence),
  }));
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
