/**
 * The graph's entity vectors: loaded from the entity rows at open (those of this space only),
 * searched for recall's seeds, kept beside each commit and edit, and re-embedded in batches when
 * missing or from another space. An embedding failure is logged and retried later, never thrown
 * into a commit.
 */
import {
  type Embedder,
  type EmbedPriority,
  errorMessage,
  type GraphEntity,
  type Logger,
} from "../../core/mod.ts";
import { withTransaction } from "../sqlite.ts";
import { DocVectors, floatsOfBlob, type StoredVector } from "../docs/vectors.ts";
import type { StaleReembedOptions } from "../embed/reembed.ts";
import { DEFAULT_ENTITY_TYPE } from "./schema.ts";
import type { GraphSql } from "./_rows.ts";
import { entitiesByIds } from "./_recall.ts";

/** The text an entity is embedded from: its name, and its type when it has one. */
export function entityText(entity: Pick<GraphEntity, "name" | "type">): string {
  return entity.type === DEFAULT_ENTITY_TYPE ? entity.name : `${entity.name} ${entity.type}`;
}

/** Vectors of one graph's entities in one embedding space. */
export class EntityVectors {
  #g: GraphSql;
  #embedder: Embedder;
  #logger: Logger;
  #vectors: DocVectors;

  constructor(g: GraphSql, options: { embedder: Embedder; logger: Logger }) {
    this.#g = g;
    this.#embedder = options.embedder;
    this.#logger = options.logger;
    const { fingerprint, dim } = options.embedder;
    // Loaded at the first recall, not here: an idle daemon holds no matrix (docs/memory.md).
    this.#vectors = new DocVectors(dim, {
      capacity: () => Number(g.get("select count(*) as n from entities")?.n ?? 0) + 64,
      load: () => storedVectors(g, fingerprint, dim),
      exact: (ids) =>
        new Map([...storedVectors(g, fingerprint, dim, ids)].map((r) => [r.id, r.vector])),
    });
  }

  /** Active entities whose vector scores at least `min` against `vector`, best first. */
  hits(vector: Float32Array, k: number, min: number): { id: number; score: number }[] {
    if (vector.length !== this.#vectors.dim) return [];
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

  /** Bytes held in memory for the vectors. */
  residentBytes(): number {
    return this.#vectors.residentBytes();
  }

  /** Forget the vector of entity `id` (merged away or erased). */
  delete(id: number): void {
    this.#vectors.delete(String(id));
  }

  /** How many entities have no vector, or one from another space. */
  stale(): number {
    const row = this.#g.get(
      "select count(*) as n from entities where fingerprint is null or fingerprint != ?",
      this.#embedder.fingerprint,
    );
    return Number(row?.n ?? 0);
  }

  /** Re-embed entities whose vector is missing or from another space; returns how many. */
  async reembedStale(options: StaleReembedOptions = {}): Promise<number> {
    let done = 0;
    for (;;) {
      options.signal?.throwIfAborted();
      const ids = this.#g.all(
        "select id from entities where fingerprint is null or fingerprint != ? limit ?",
        this.#embedder.fingerprint,
        BigInt(options.batch ?? 256),
      ).map((r) => Number(r.id));
      if (ids.length === 0) return done;
      if (!await this.embed(ids, options.signal, options.priority)) return done;
      done += ids.length;
      options.onProgress?.(done);
    }
  }

  /** Embed and store entities `ids`; false (logged) when the space failed, true otherwise. */
  async embed(ids: readonly number[], signal?: AbortSignal, priority?: EmbedPriority) {
    if (ids.length === 0) return true;
    // An edit cleared their space in the rows: a failed embed must not leave a cached vector.
    for (const id of ids) this.#vectors.uncache(String(id));
    const embedder = this.#embedder;
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
          this.#vectors.put(String(e.id), v);
        });
      });
      return true;
    } catch (error) {
      if (signal?.aborted) throw error;
      this.#logger.warn("Cannot embed graph entities; will retry later", {
        count: ids.length,
        error: errorMessage(error),
      });
      return false;
    }
  }
}

/** The float vectors of space `fingerprint` (of `ids` only, when given), one row at a time. */
function* storedVectors(
  g: GraphSql,
  fingerprint: string,
  dim: number,
  ids?: readonly string[],
): Generator<StoredVector> {
  const rows = ids === undefined
    ? g.sql("select id, vector from entities where fingerprint = ? and vector is not null")
      .iterate(fingerprint)
    : g.sql(
      `select id, vector from entities where id in (select value from json_each(?))
       and fingerprint = ? and vector is not null`,
    ).iterate(JSON.stringify(ids.map(Number)), fingerprint);
  for (const row of rows) {
    const bytes = row.vector as Uint8Array;
    if (bytes.byteLength !== dim * 4) continue;
    yield { id: String(row.id), vector: floatsOfBlob(bytes) };
  }
}
