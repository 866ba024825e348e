/**
 * The graph layer (ARCHITECTURE.md "Graph Layer"): GraphDB on SQLite at memory/graph.db (WAL,
 * foreign keys, ordered migrations). Entities with aliases, mention counts and vectors in the
 * shared space; relations with confidence, status and validity (a superseded fact is closed,
 * not contradicted); the sentences facts came from; blocks and edges ready for media.
 */
import {
  type Clock,
  type CommitResult,
  type Embedder,
  type EntityPatch,
  type GraphEntity,
  type GraphEntityType,
  type GraphFilter,
  type GraphIntrospection,
  type GraphQuery,
  type GraphRecall,
  type GraphRelation,
  type GraphStore,
  type Logger,
  type MergeResult,
  type NeighbourhoodOptions,
  type RelationPatch,
  silentLogger,
  type Triple,
} from "../../core/mod.ts";
import { checkpoint, type CheckpointResult, openDatabase, withTransaction } from "../sqlite.ts";
import { GRAPH_MIGRATIONS } from "./schema.ts";
import { GraphSql } from "./_rows.ts";
import { commitNewTriples, commitTriples } from "./_commit.ts";
import { around, keywordSeeds, overview, walk } from "./_recall.ts";
import * as edit from "./_edit.ts";
import { browse, entityTypes, versionIds } from "./_browse.ts";
import { EntityVectors } from "./_entity_vectors.ts";
import { RecallCache } from "./_recall_cache.ts";
import { mergeHits, mixScores } from "../recall/mix.ts";
import {
  defaultRecallSettings,
  denseWeightFor,
  type RecallSettingsSource,
} from "../recall/config.ts";
import type { StaleReembedOptions } from "../embed/reembed.ts";
import {
  bulkEntities,
  type BulkGraph,
  bulkRelations,
  dumpGraph,
  type GraphDump,
  type GraphLoad,
  loadGraph,
} from "./_portable.ts";
import {
  dumpTombstones,
  forgetName,
  loadForgotten,
  loadTombstones,
  screenTriples,
  type TombstoneDump,
} from "./_forget.ts";
import type { ForgottenNames } from "../forget/matcher.ts";

export type { BulkGraph, EntityRecord, FactRecord, GraphDump } from "./_portable.ts";
export type { TombstoneDump } from "./_forget.ts";
export { entityText } from "./_entity_vectors.ts";

export {
  FUNCTIONAL_PREDICATES,
  isSingleValued,
  normalizeName,
  normalizePredicate,
} from "./schema.ts";

/** Options of GraphDB.open. */
export interface GraphDbOptions {
  /** The database file (memory/graph.db), or ":memory:". */
  path: string;
  clock: Pick<Clock, "now">;
  /** The shared vector space for entity vectors; without it there are no vector seeds. */
  embedder?: Embedder;
  logger?: Logger;
  busyTimeoutMs?: number;
  /** A vector seed needs at least this cosine with the query; default 0.3. */
  minVectorScore?: number;
  /** The dense/keyword mix that orders seeds; default the space's defaults. */
  recall?: RecallSettingsSource;
}

/** Sizes for `status` and `memory stats`. */
export interface GraphStats {
  entities: number;
  /** Active, open relations. */
  relations: number;
  closed: number;
  deleted: number;
  sentences: number;
}

/** What GraphDB.forget erased. */
export interface GraphForgetResult {
  /** Names tombstoned: the one asked for, and its entity's name and aliases. */
  names: number;
  /** The same names in plain text, for the rest of the sweep (held in memory only). */
  forgotten: string[];
  entities: number;
  relations: number;
  /** Sentences redacted or removed. */
  sentences: number;
  checkpoint: CheckpointResult;
}

/** The graph database. Methods are synchronous SQLite underneath; promises for the port. */
export class GraphDB implements GraphStore {
  #o: GraphDbOptions;
  #g: GraphSql;
  #vectors?: EntityVectors;
  #forgotten: ForgottenNames;
  #cache: RecallCache;

  private constructor(options: GraphDbOptions) {
    this.#o = options;
    const db = openDatabase(options.path, {
      migrations: GRAPH_MIGRATIONS,
      busyTimeoutMs: options.busyTimeoutMs,
    });
    this.#g = new GraphSql(db, () => options.clock.now());
    this.#cache = new RecallCache(this.#g);
    this.#forgotten = loadForgotten(this.#g);
    if (options.embedder) {
      const logger = options.logger ?? silentLogger;
      this.#vectors = new EntityVectors(this.#g, { embedder: options.embedder, logger });
    }
  }

  /**
   * The names forgotten in this home (tombstones), one object for the life of the database:
   * every writer of memory redacts by it, and it learns each name forgotten here.
   */
  get forgotten(): ForgottenNames {
    return this.#forgotten;
  }

  /** Open (or create) the graph database; throws DatabaseError naming the file. */
  static open(options: GraphDbOptions): GraphDB {
    return new GraphDB(options);
  }

  /** Commit, refusing (and counting) triples that name a forgotten entity. */
  async commit(triples: readonly Triple[]): Promise<CommitResult> {
    const { kept, refused } = screenTriples(triples, this.#forgotten);
    const out = withTransaction(this.#g.db, () => commitTriples(this.#g, kept));
    await this.#vectors?.embed(out.fresh);
    return {
      entities: out.entities,
      relations: out.relations,
      reinforced: out.reinforced,
      closed: out.closed,
      ...(refused > 0 ? { forgotten: refused } : {}),
    };
  }

  /** Commit the facts of an import, skipping those already stored (see commitNewTriples). */
  async importFacts(triples: readonly Triple[]): Promise<CommitResult & { skipped: number }> {
    const { kept, refused } = screenTriples(triples, this.#forgotten);
    const out = withTransaction(this.#g.db, () => commitNewTriples(this.#g, kept));
    await this.#vectors?.embed(out.fresh);
    const { fresh: _, ...result } = out;
    return { ...result, ...(refused > 0 ? { forgotten: refused } : {}) };
  }

  /**
   * Forget `name` for good: tombstones for it and for its entity's name and aliases, then every
   * entity it names or appears in, their relations, and the name in every sentence; then the
   * file is vacuumed and checkpointed so no deleted byte is left. Later commits naming it are
   * refused. An unknown name is still tombstoned (so nothing stores it from now on).
   */
  forget(name: string): Promise<GraphForgetResult> {
    return settle(() => {
      const { names, next, sweep } = withTransaction(
        this.#g.db,
        () => forgetName(this.#g, this.#forgotten, name),
      );
      this.#forgotten.merge(next);
      for (const gone of sweep.entities) this.#vectors?.delete(gone);
      return {
        names: names.length,
        forgotten: names,
        entities: sweep.entities.length,
        relations: sweep.relations,
        sentences: sweep.sentences,
        checkpoint: checkpoint(this.#g.db, { vacuum: true }),
      };
    });
  }

  async recall(query: GraphQuery): Promise<GraphRecall> {
    const limit = query.limit ?? 50;
    const keywords = query.keywords.filter((k) => k.trim() !== "");
    if (keywords.length === 0 && !query.vector) return overview(this.#g, limit);
    // The keyword seeds first: a caller handing a promise of the vector embeds it meanwhile.
    const byKeyword = keywordSeeds(this.#g, keywords, { cache: this.#cache.fresh() });
    const seeds = this.#seeds(keywords, byKeyword, await query.vector);
    const cache = this.#cache.fresh(); // again: a write may have come while the vector was made
    const reached = walk(this.#g, seeds, { depth: query.depth ?? 2, limit, cache });
    return around(this.#g, reached, limit, { seeds, cache });
  }

  /**
   * Recall's seeds, best first: entities found by a keyword (its name or alias, or the trigram
   * index) and by the query vector, ordered by recall's dense/keyword mix — the keyword side
   * scores a seed by the rank of the keyword that found it (keywords come best first).
   */
  #seeds(keywords: readonly string[], byKeyword: number[], vector?: Float32Array): number[] {
    const byVector = vector ? this.#vectorHits(vector) : [];
    if (byVector.length === 0) return byKeyword;
    const candidates = mergeHits(
      byVector.map((h) => ({ id: String(h.id), score: h.score })),
      byKeyword.map((id, rank) => ({ id: String(id), score: 1 / (1 + rank) })),
    );
    const settings = (this.#o.recall ?? (() => defaultRecallSettings(this.#o.embedder!)))();
    return mixScores(candidates, { dense: denseWeightFor(settings, keywords) }).map((c) =>
      Number(c.id)
    );
  }

  /** Bytes of entity vectors held in memory (0 until the first vector recall loads them). */
  vectorBytes(): number {
    return this.#vectors?.residentBytes() ?? 0;
  }

  /** Active entities whose vector is close to `vector` (cosine ≥ minVectorScore), best first. */
  vectorSeeds(vector: Float32Array, k = 5): number[] {
    return this.#vectorHits(vector, k).map((h) => h.id);
  }

  #vectorHits(vector: Float32Array, k = 5): { id: number; score: number }[] {
    return this.#vectors?.hits(vector, k, this.#o.minVectorScore ?? 0.3) ?? [];
  }

  stats(): Promise<GraphStats> {
    return settle(() => this.counts());
  }

  /** stats(), synchronously. */
  counts(): GraphStats {
    const view = edit.introspect(this.#g, 0, 0);
    return {
      entities: view.entities,
      relations: view.relations,
      closed: view.closed,
      deleted: view.deleted,
      sentences: view.sentences,
    };
  }

  entity(name: string): Promise<GraphEntity | undefined> {
    return settle(() => {
      const id = this.#g.entityId(name);
      return id === undefined ? undefined : this.#g.entity(id);
    });
  }

  history(name: string, options: { limit?: number } = {}): Promise<GraphRelation[]> {
    return settle(() => {
      const id = this.#g.requireEntity(name);
      return this.#g.relations(edit.historyIds(this.#g, id, options.limit ?? 100));
    });
  }

  neighbourhood(name: string, options: NeighbourhoodOptions = {}): Promise<GraphRecall> {
    return settle(() => {
      const id = this.#g.requireEntity(name);
      const limit = options.limit ?? 50;
      const reached = walk(this.#g, [id], {
        depth: options.depth ?? 1,
        limit,
        types: options.types,
      });
      return around(this.#g, reached, limit);
    });
  }

  async merge(keep: string, drop: string): Promise<MergeResult> {
    const r = withTransaction(this.#g.db, () => edit.mergeEntities(this.#g, keep, drop));
    this.#vectors?.delete(r.drop);
    await this.#vectors?.embed([r.keep]);
    return { entity: this.#g.entity(r.keep)!, moved: r.moved, folded: r.folded };
  }

  purge(name: string): Promise<{ relations: number; sentences: number }> {
    return settle(() => {
      const id = this.#g.entityId(name);
      const result = withTransaction(this.#g.db, () => edit.purgeEntity(this.#g, name));
      if (id !== undefined) this.#vectors?.delete(id);
      return result;
    });
  }

  deleteEntity(name: string): Promise<{ relations: number }> {
    return settle(() => {
      return withTransaction(this.#g.db, () => edit.retireEntity(this.#g, name));
    });
  }

  async editEntity(name: string, patch: EntityPatch): Promise<GraphEntity> {
    const id = withTransaction(this.#g.db, () => edit.editEntity(this.#g, name, patch));
    await this.#vectors?.embed([id]);
    return this.#g.entity(id)!;
  }

  editRelation(id: number, patch: RelationPatch): Promise<GraphRelation> {
    return settle(() => {
      withTransaction(this.#g.db, () => edit.editRelation(this.#g, id, patch));
      return this.#g.relations([id])[0]!;
    });
  }

  browse(filter: GraphFilter): Promise<GraphRecall> {
    return settle(() => browse(this.#g, filter));
  }

  versions(id: number): Promise<GraphRelation[]> {
    return settle(() => this.#g.relations(versionIds(this.#g, id)));
  }

  entityTypes(): Promise<GraphEntityType[]> {
    return settle(() => entityTypes(this.#g));
  }

  introspect(options: { top?: number; recent?: number } = {}): Promise<GraphIntrospection> {
    return settle(() => {
      const { recentIds, ...view } = edit.introspect(
        this.#g,
        options.top ?? 10,
        options.recent ?? 10,
      );
      return { ...view, recentRelations: this.#g.relations(recentIds) };
    });
  }

  /**
   * Insert many new entities in one transaction, without de-duplication (imports of a
   * known-clean graph, benchmarks); returns their ids in order. Throws on an existing name.
   */
  bulkEntities(entities: BulkGraph["entities"]): number[] {
    return bulkEntities(this.#g, entities);
  }

  /** Insert many relations between entity ids in one transaction, without superseding. */
  bulkRelations(relations: BulkGraph["relations"]): void {
    bulkRelations(this.#g, relations);
  }

  /** How many entities have no vector, or one from another space. */
  staleEntities(): number {
    return this.#vectors?.stale() ?? 0;
  }

  /** Re-embed entities whose vector is missing or from another space; returns how many. */
  reembedStale(options: StaleReembedOptions = {}): Promise<number> {
    return this.#vectors?.reembedStale(options) ?? Promise.resolve(0);
  }

  /** Every entity, fact (deleted too) and tombstone, in a stable order: `memory export`. */
  dump(): GraphDump & { tombstones: TombstoneDump } {
    return { ...dumpGraph(this.#g), tombstones: dumpTombstones(this.#g) };
  }

  /** Write a dump back exactly, all or nothing (tombstones first); see loadGraph. */
  async load(dump: GraphDump & { tombstones?: TombstoneDump }): Promise<Omit<GraphLoad, "fresh">> {
    const next = this.#forgotten.copy();
    const out = withTransaction(this.#g.db, () => {
      if (dump.tombstones) loadTombstones(this.#g, next, dump.tombstones);
      return loadGraph(this.#g, dump, next);
    });
    this.#forgotten.merge(next);
    await this.#vectors?.embed(out.fresh);
    const { fresh: _, ...counts } = out;
    return counts;
  }

  /** Close the database. */
  close(): void {
    if (!this.#g.db.isOpen) return;
    this.#g.clear();
    this.#cache.clear();
    this.#g.db.close();
  }
}

/** Run `fn` now; its result or its throw as a promise (the port's methods reject, never throw). */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}
