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
  type EmbedPriority,
  type EntityPatch,
  errorMessage,
  type GraphEntity,
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
import { DEFAULT_ENTITY_TYPE, GRAPH_MIGRATIONS } from "./schema.ts";
import { GraphSql } from "./_rows.ts";
import { commitNewTriples, commitTriples } from "./_commit.ts";
import { around, entitiesByIds, keywordSeeds, overview, walk } from "./_recall.ts";
import * as edit from "./_edit.ts";
import { DocVectors } from "../docs/vectors.ts";
import { mergeHits, mixScores } from "../recall/mix.ts";
import { defaultRecallSettings, type RecallSettingsSource } from "../recall/config.ts";
import type { StaleReembedOptions } from "../embed/reembed.ts";
import { bulkEntities, type BulkGraph, bulkRelations, exportFacts } from "./_portable.ts";
import { addTombstones, loadForgotten, screenTriples, sweepGraph } from "./_forget.ts";
import { foldName, type ForgottenNames } from "../forget/matcher.ts";

export type { BulkGraph } from "./_portable.ts";

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
  #vectors?: DocVectors;
  #forgotten: ForgottenNames;

  private constructor(options: GraphDbOptions) {
    this.#o = options;
    const db = openDatabase(options.path, {
      migrations: GRAPH_MIGRATIONS,
      busyTimeoutMs: options.busyTimeoutMs,
    });
    this.#g = new GraphSql(db, () => options.clock.now());
    this.#forgotten = loadForgotten(this.#g);
    if (options.embedder) this.#loadVectors(options.embedder);
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
    await this.#embed(out.fresh);
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
    await this.#embed(out.fresh);
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
      const id = this.#g.entityId(name);
      const entity = id === undefined ? undefined : this.#g.entity(id);
      const names = [name, ...(entity ? [entity.name, ...entity.aliases ?? []] : [])];
      const unique = [...new Map(names.map((n) => [foldName(n), n])).values()];
      const next = this.#forgotten.copy();
      const sweep = withTransaction(this.#g.db, () => {
        addTombstones(this.#g, next, unique);
        return sweepGraph(this.#g, next);
      });
      this.#forgotten.merge(next);
      for (const gone of sweep.entities) this.#vectors?.delete(String(gone));
      return {
        names: unique.length,
        entities: sweep.entities.length,
        relations: sweep.relations,
        sentences: sweep.sentences,
        checkpoint: checkpoint(this.#g.db, { vacuum: true }),
      };
    });
  }

  recall(query: GraphQuery): Promise<GraphRecall> {
    return settle(() => {
      const limit = query.limit ?? 50;
      const keywords = query.keywords.filter((k) => k.trim() !== "");
      if (keywords.length === 0 && !query.vector) return overview(this.#g, limit);
      const seeds = this.#seeds(keywords, query.vector);
      const reached = walk(this.#g, seeds, { depth: query.depth ?? 2, limit });
      return around(this.#g, reached, limit, seeds);
    });
  }

  /**
   * Recall's seeds, best first: entities found by a keyword (its name or alias, or the trigram
   * index) and by the query vector, ordered by recall's dense/keyword mix — the keyword side
   * scores a seed by the rank of the keyword that found it (keywords come best first).
   */
  #seeds(keywords: readonly string[], vector?: Float32Array): number[] {
    const byKeyword = keywordSeeds(this.#g, keywords);
    const byVector = vector ? this.#vectorHits(vector) : [];
    if (byVector.length === 0) return byKeyword;
    const candidates = mergeHits(
      byVector.map((h) => ({ id: String(h.id), score: h.score })),
      byKeyword.map((id, rank) => ({ id: String(id), score: 1 / (1 + rank) })),
    );
    const settings = (this.#o.recall ?? (() => defaultRecallSettings(this.#o.embedder!)))();
    return mixScores(candidates, { dense: settings.denseWeight }).map((c) => Number(c.id));
  }

  /** Active entities whose vector is close to `vector` (cosine ≥ minVectorScore), best first. */
  vectorSeeds(vector: Float32Array, k = 5): number[] {
    return this.#vectorHits(vector, k).map((h) => h.id);
  }

  #vectorHits(vector: Float32Array, k = 5): { id: number; score: number }[] {
    if (!this.#vectors || vector.length !== this.#vectors.dim) return [];
    const min = this.#o.minVectorScore ?? 0.3;
    const hits = this.#vectors.search(vector, k * 2).filter((h) => h.score >= min);
    if (hits.length === 0) return [];
    const active = new Set(
      this.#g.all(
        "select id from entities where id in (select value from json_each(?)) and status = 'active'",
        JSON.stringify(hits.map((h) => Number(h.id))),
      ).map((r) => Number(r.id)),
    );
    return hits.map((h) => ({ id: Number(h.id), score: h.score })).filter((h) => active.has(h.id))
      .slice(0, k);
  }

  stats(): Promise<GraphStats> {
    return settle(() => {
      return this.counts();
    });
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
    this.#vectors?.delete(String(r.drop));
    await this.#embed([r.keep]);
    return { entity: this.#g.entity(r.keep)!, moved: r.moved, folded: r.folded };
  }

  purge(name: string): Promise<{ relations: number; sentences: number }> {
    return settle(() => {
      const id = this.#g.entityId(name);
      const result = withTransaction(this.#g.db, () => edit.purgeEntity(this.#g, name));
      if (id !== undefined) this.#vectors?.delete(String(id));
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
    await this.#embed([id]);
    return this.#g.entity(id)!;
  }

  editRelation(id: number, patch: RelationPatch): Promise<GraphRelation> {
    return settle(() => {
      withTransaction(this.#g.db, () => edit.editRelation(this.#g, id, patch));
      return this.#g.relations([id])[0]!;
    });
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
    const embedder = this.#o.embedder;
    if (!embedder) return 0;
    const row = this.#g.get(
      "select count(*) as n from entities where fingerprint is null or fingerprint != ?",
      embedder.fingerprint,
    );
    return Number(row?.n ?? 0);
  }

  /** Re-embed entities whose vector is missing or from another space; returns how many. */
  async reembedStale(options: StaleReembedOptions = {}): Promise<number> {
    const embedder = this.#o.embedder;
    if (!embedder) return 0;
    let done = 0;
    for (;;) {
      options.signal?.throwIfAborted();
      const ids = this.#g.all(
        "select id from entities where fingerprint is null or fingerprint != ? limit ?",
        embedder.fingerprint,
        BigInt(options.batch ?? 256),
      ).map((r) => Number(r.id));
      if (ids.length === 0) return done;
      if (!await this.#embed(ids, options.signal, options.priority)) return done;
      done += ids.length;
      options.onProgress?.(done);
    }
  }

  /** Every fact not deleted (open and closed), oldest first, with names and sentences: export. */
  exportFacts(): (Triple & { validTo?: number })[] {
    return exportFacts(this.#g);
  }

  /** Close the database. */
  close(): void {
    if (!this.#g.db.isOpen) return;
    this.#g.clear();
    this.#g.db.close();
  }

  async #embed(
    ids: readonly number[],
    signal?: AbortSignal,
    priority?: EmbedPriority,
  ): Promise<boolean> {
    const embedder = this.#o.embedder;
    if (!embedder || !this.#vectors || ids.length === 0) return true;
    const entities = entitiesByIds(this.#g, ids);
    try {
      const vectors = await embedder.embed(entities.map(entityText), { signal, priority });
      withTransaction(this.#g.db, () => {
        entities.forEach((e, i) => {
          const v = vectors[i]!;
          this.#g.run(
            "update entities set fingerprint = ?, vector = ? where id = ?",
            embedder.fingerprint,
            new Uint8Array(v.buffer, v.byteOffset, v.byteLength),
            BigInt(e.id),
          );
          this.#vectors!.put(String(e.id), v);
        });
      });
      return true;
    } catch (error) {
      if (signal?.aborted) throw error;
      (this.#o.logger ?? silentLogger).warn("Cannot embed graph entities; will retry later", {
        count: ids.length,
        error: errorMessage(error),
      });
      return false;
    }
  }

  #loadVectors(embedder: Embedder): void {
    this.#vectors = new DocVectors(embedder.dim);
    const rows = this.#g.sql(
      "select id, vector from entities where fingerprint = ? and vector is not null",
    ).iterate(embedder.fingerprint);
    for (const row of rows) {
      const bytes = row.vector as Uint8Array;
      if (bytes.byteLength !== embedder.dim * 4) continue;
      const copy = new Uint8Array(bytes.byteLength);
      copy.set(bytes);
      this.#vectors.put(String(row.id), new Float32Array(copy.buffer));
    }
  }
}

/** The text an entity is embedded from: its name, and its type when it has one. */
export function entityText(entity: Pick<GraphEntity, "name" | "type">): string {
  return entity.type === DEFAULT_ENTITY_TYPE ? entity.name : `${entity.name} ${entity.type}`;
}

/** Run `fn` now; its result or its throw as a promise (the port's methods reject, never throw). */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}
