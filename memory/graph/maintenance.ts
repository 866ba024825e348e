/**
 * GraphMaintenance over GraphDB for the merge and review loops: the two listings GraphStore
 * lacks are read on a connection of our own to memory/graph.db (WAL lets it read beside the
 * GraphDB's writer); every write goes through the GraphStore so its rules (aliases, folding,
 * validity) stay in one place.
 */
import type { DatabaseSync } from "node:sqlite";
import type { GraphEntity, GraphMaintenance, GraphRelation, GraphStore } from "../../core/mod.ts";
import { openDatabase } from "../sqlite.ts";
import { GRAPH_MIGRATIONS } from "./schema.ts";
import { ENTITY_COLUMNS, RELATION_SELECT, toEntity, toRelation } from "./_rows.ts";

/** GraphMaintenance reading memory/graph.db at `path` and writing through `graph`. */
export class GraphMaintenanceDb implements GraphMaintenance {
  #db: DatabaseSync;
  #graph: GraphStore;

  constructor(options: { path: string; graph: GraphStore }) {
    if (options.path === ":memory:") {
      throw new TypeError("Cannot maintain an in-memory graph from a second connection");
    }
    this.#db = openDatabase(options.path, { migrations: GRAPH_MIGRATIONS });
    this.#graph = options.graph;
  }

  entities(options: { limit: number }): Promise<GraphEntity[]> {
    const rows = this.#db.prepare(
      `select ${ENTITY_COLUMNS} from entities where status = 'active'
       order by updated_at desc, id desc limit ?`,
    ).all(BigInt(options.limit));
    return Promise.resolve(rows.map(toEntity));
  }

  lowConfidence(
    options: { below: number; afterId: number; limit: number },
  ): Promise<GraphRelation[]> {
    const rows = this.#db.prepare(
      `${RELATION_SELECT} where r.status = 'active' and r.valid_to is null
         and r.confidence < ? and r.id > ? order by r.id limit ?`,
    ).all(options.below, BigInt(options.afterId), BigInt(options.limit));
    return Promise.resolve(rows.map(toRelation));
  }

  merge(keep: string, drop: string): Promise<unknown> {
    return this.#graph.merge(keep, drop);
  }

  editRelation(id: number, patch: Parameters<GraphStore["editRelation"]>[1]) {
    return this.#graph.editRelation(id, patch);
  }

  /** Close the reading connection. */
  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }
}
