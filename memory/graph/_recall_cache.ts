/**
 * Recall's read caches over graph.db (issue 14): each keyword's seeds, each entity's active open
 * relations both ways, and the relation and entity rows a recall returns. Consecutive recalls
 * share most of their keywords and reach mostly the same entities (their queries share the
 * recent turns), and reading these again was most of the graph's part of a recall (the
 * trigram seeds and the relations among ~256 reached entities, ~5 ms at 1M relations).
 *
 * They hold for one content of the database only: any change made through this connection
 * (`total_changes()`) or committed by another (`pragma data_version`) drops them all before the
 * next use, and inside a transaction (which may roll back) they are neither read nor filled.
 */
import type { StatementSync } from "node:sqlite";
import { type GraphEntity, type GraphRelation, LruMap } from "../../core/mod.ts";
import type { GraphSql } from "./_rows.ts";

/** A statement that can return rows as arrays (node:sqlite has it; Deno's types lack it). */
type ArrayRows = StatementSync & { setReturnArrays(enabled: boolean): void };

/** An active open relation out of an entity. */
export interface Edge {
  id: number;
  target: number;
  confidence: number;
}

/** Entries each cache keeps (least recently used go first). */
const ENTRIES = 4096;

/** The caches of one graph database; `fresh()` hands them out when they may be used. */
export class RecallCache {
  #g: GraphSql;
  #version = "";
  #seeds = new LruMap<string, readonly number[]>(ENTRIES);
  #out = new LruMap<number, readonly Edge[]>(ENTRIES);
  #in = new LruMap<number, readonly number[]>(ENTRIES);
  #relations = new LruMap<number, GraphRelation>(ENTRIES);
  #entities = new LruMap<number, GraphEntity>(ENTRIES);

  constructor(g: GraphSql) {
    this.#g = g;
  }

  /** The caches, or undefined inside a transaction; dropped first if the content changed. */
  fresh(): RecallCache | undefined {
    if (this.#g.db.isTransaction) return undefined;
    const row = this.#g.get(
      "select total_changes() as n, (select data_version from pragma_data_version) as v",
    );
    const version = `${row?.n}:${row?.v}`;
    if (version !== this.#version) this.clear();
    this.#version = version;
    return this;
  }

  /** Drop every cached read. */
  clear(): void {
    for (const c of [this.#seeds, this.#out, this.#in, this.#relations, this.#entities]) c.clear();
  }

  /** The seeds of `keyword`, computed by `find` when not cached. */
  seeds(keyword: string, find: () => number[]): readonly number[] {
    return this.#seeds.get(keyword) ?? this.#seeds.set(keyword, find());
  }

  /** The active open relations out of each of `ids` (by target), missing ones read at once. */
  out(ids: Iterable<number>): Map<number, readonly Edge[]> {
    const found = new Map<number, readonly Edge[]>();
    const missing: number[] = [];
    for (const id of ids) {
      const edges = this.#out.get(id);
      if (edges) found.set(id, edges);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    const read = new Map<number, Edge[]>(missing.map((id) => [id, []]));
    // Rows as arrays, in the index's order (by source, then target): a cold recall reads ~10
    // relations per reached entity here, ten times what `around` keeps of them.
    const select = this.#g.sql(
      `select source_id, id, target_id, confidence from relations
       where source_id in (select value from json_each(?)) and status = 'active'
         and valid_to is null order by source_id, target_id`,
    ) as ArrayRows;
    select.setReturnArrays(true);
    for (const row of select.all(JSON.stringify(missing)) as unknown as number[][]) {
      read.get(row[0]!)?.push({ id: row[1]!, target: row[2]!, confidence: row[3]! });
    }
    for (const [id, edges] of read) found.set(id, this.#out.set(id, edges));
    return found;
  }

  /** The sources of the active open relations into `id`, in id order. */
  sources(id: number): readonly number[] {
    return this.#in.get(id) ?? this.#in.set(
      id,
      this.#g.all(
        `select source_id as id from relations
         where target_id = ? and status = 'active' and valid_to is null order by source_id`,
        BigInt(id),
      ).map((row) => Number(row.id)),
    );
  }

  /** Relations by id in the order of `ids` (copies), missing ones read by `read`. */
  relations(ids: readonly number[], read: (ids: number[]) => GraphRelation[]): GraphRelation[] {
    return rows(this.#relations, ids, read).map((r) => ({ ...r, turnIds: [...r.turnIds] }));
  }

  /** Entities by id in the order of `ids` (copies), missing ones read by `read`. */
  entities(ids: readonly number[], read: (ids: number[]) => GraphEntity[]): GraphEntity[] {
    return rows(this.#entities, ids, read).map((e) => ({
      ...e,
      aliases: e.aliases && [...e.aliases],
    }));
  }
}

/** The rows of `ids` in their order: cached ones, the rest read by `read` (any order) and kept. */
function rows<T extends { id: number }>(
  cache: LruMap<number, T>,
  ids: readonly number[],
  read: (ids: number[]) => T[],
): T[] {
  const found = new Map<number, T>();
  const missing: number[] = [];
  for (const id of ids) {
    const row = cache.get(id);
    if (row) found.set(id, row);
    else missing.push(id);
  }
  if (missing.length > 0) {
    for (const row of read(missing)) found.set(row.id, cache.set(row.id, row));
  }
  return ids.flatMap((id) => found.get(id) ?? []);
}
