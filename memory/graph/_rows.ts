/** Row ↔ type mapping of the graph database, and the prepared-statement cache its code shares. */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import { type GraphEntity, type GraphRelation, HomeAgentError } from "../../core/mod.ts";
import { normalizeName } from "./schema.ts";

/** A database with cached statements, the clock, and the lookups every operation needs. */
export class GraphSql {
  readonly db: DatabaseSync;
  readonly now: () => number;
  #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync, now: () => number) {
    this.db = db;
    this.now = now;
  }

  /** The cached prepared statement of `sql`. */
  sql(sql: string): StatementSync {
    let s = this.#statements.get(sql);
    if (!s) this.#statements.set(sql, s = this.db.prepare(sql));
    return s;
  }

  /** Every row of `sql`. */
  all(sql: string, ...params: SQLInputValue[]): Record<string, SQLInputValue>[] {
    return this.sql(sql).all(...params);
  }

  /** The first row of `sql`. */
  get(sql: string, ...params: SQLInputValue[]): Record<string, SQLInputValue> | undefined {
    return this.sql(sql).get(...params);
  }

  /** Run `sql`; returns the number of changed rows. */
  run(sql: string, ...params: SQLInputValue[]): number {
    return Number(this.sql(sql).run(...params).changes);
  }

  /** The id of the entity named `name` (or with that alias), any status. */
  entityId(name: string): number | undefined {
    const norm = normalizeName(name);
    const row = this.get("select id from entities where norm = ?", norm) ??
      this.get("select entity_id as id from entity_aliases where norm = ?", norm);
    return row ? Number(row.id) : undefined;
  }

  /** The id of `name`, or a `graph_not_found` error naming it. */
  requireEntity(name: string): number {
    const id = this.entityId(name);
    if (id === undefined) {
      throw new HomeAgentError("graph_not_found", `No entity named "${name}" in memory`);
    }
    return id;
  }

  /** One entity by id. */
  entity(id: number): GraphEntity | undefined {
    const row = this.get(`select ${ENTITY_COLUMNS} from entities where id = ?`, BigInt(id));
    return row ? toEntity(row) : undefined;
  }

  /** Relations by id, in the order of `ids`. */
  relations(ids: readonly number[]): GraphRelation[] {
    if (ids.length === 0) return [];
    const rows = this.all(
      `${RELATION_SELECT} where r.id in (select value from json_each(?))`,
      JSON.stringify(ids),
    );
    const byId = new Map(rows.map((row) => [Number(row.id), toRelation(row)]));
    return ids.map((id) => byId.get(id)).filter((r): r is GraphRelation => r !== undefined);
  }

  /** Drop the cached statements (before close). */
  clear(): void {
    this.#statements.clear();
  }
}

/** The entity columns toEntity reads. */
export const ENTITY_COLUMNS = "id, name, type, mentions, aliases, created_at, updated_at";

/** A relation with its endpoint names and its newest source sentence. */
export const RELATION_SELECT = `select r.id, s.name as source, t.name as target, r.type,
    r.confidence, r.mentions, r.status, r.valid_from, r.valid_to, r.session_id, r.turn_ids,
    r.created_at,
    (select x.text from relation_sentences rs join sentences x on x.id = rs.sentence_id
      where rs.relation_id = r.id order by x.id desc limit 1) as sentence
  from relations r join entities s on s.id = r.source_id join entities t on t.id = r.target_id`;

/** An entity row as the port's type. */
export function toEntity(row: Record<string, SQLInputValue>): GraphEntity {
  const aliases = String(row.aliases ?? "");
  return {
    id: Number(row.id),
    name: String(row.name),
    type: String(row.type),
    mentions: Number(row.mentions),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    aliases: aliases === "" ? [] : aliases.split("\n"),
  };
}

/** A RELATION_SELECT row as the port's type. */
export function toRelation(row: Record<string, SQLInputValue>): GraphRelation {
  return {
    id: Number(row.id),
    source: String(row.source),
    target: String(row.target),
    type: String(row.type),
    confidence: Number(row.confidence),
    status: row.status === "deleted" ? "deleted" : "active",
    validFrom: Number(row.valid_from),
    validTo: row.valid_to === null ? undefined : Number(row.valid_to),
    sentence: row.sentence === null || row.sentence === undefined
      ? undefined
      : String(row.sentence),
    turnIds: JSON.parse(String(row.turn_ids)) as string[],
    createdAt: Number(row.created_at),
    mentions: Number(row.mentions),
    sessionId: row.session_id === null ? undefined : String(row.session_id),
  };
}

/** Union of two turn-id lists, newest kept when over `max`. */
export function mergeTurnIds(a: readonly string[], b: readonly string[], max = 32): string[] {
  return [...new Set([...a, ...b])].slice(-max);
}

/** Noisy-or of two confidences: a fact stated twice is surer than either statement. */
export function reinforce(a: number, b: number): number {
  return Math.min(1, 1 - (1 - a) * (1 - b));
}
