/**
 * The knowledge graph's full contract (ARCHITECTURE.md "Graph Layer", "Memory Tools", "Other
 * Memory Layers" → Social): GraphMemory plus what the maintenance tools, the social layer and
 * the Indexer need. memory/graph/db.ts implements it on SQLite; GraphMemory stays the minimal
 * port that overlays and fakes implement.
 */
import type { GraphEntity, GraphMemory, GraphRecall, GraphRelation } from "./graph.ts";

/** What a merge did. */
export interface MergeResult {
  entity: GraphEntity;
  /** Relations re-pointed from the dropped entity. */
  moved: number;
  /** Relations that became duplicates (or self-loops) and were folded away. */
  folded: number;
}

/** Fields of an entity that `editEntity` may change. */
export interface EntityPatch {
  /** New display name; the old one stays as an alias. Refused when another entity has it. */
  name?: string;
  type?: string;
}

/** Fields of a relation that `editRelation` may change. */
export interface RelationPatch {
  type?: string;
  /** New target entity name (upserted). */
  target?: string;
  confidence?: number;
  status?: "active" | "deleted";
  /** Close the fact now (`validTo` = the store's clock); a closed fact stays in history. */
  close?: boolean;
  /**
   * Reopen a closed fact (`validTo` cleared): the undo of close. Refused (`graph_conflict`)
   * while a single-valued predicate has another open value for the same subject.
   */
  reopen?: boolean;
}

/** What the memory view browses: facts by the types of their entities and by time. */
export interface GraphFilter {
  /** Only facts touching an entity these keywords find (as recall seeds them). */
  keywords?: readonly string[];
  /** Only facts with an end of one of these entity types. */
  types?: readonly string[];
  /** Facts true at this instant (ms), closed ones included; deleted ones never. */
  validAt?: number;
  /** Facts created or changed (closed, deleted, edited) since this instant (ms). */
  changedSince?: number;
  /** Most facts returned, newest change first; default 150. */
  limit?: number;
}

/** An entity type and how many active entities have it. */
export interface GraphEntityType {
  type: string;
  entities: number;
}

/** A look at the whole graph for `memory_introspect`. */
export interface GraphIntrospection {
  entities: number;
  /** Active, not closed. */
  relations: number;
  closed: number;
  deleted: number;
  sentences: number;
  topEntities: GraphEntity[];
  recentRelations: GraphRelation[];
}

/** Options of GraphStore.neighbourhood. */
export interface NeighbourhoodOptions {
  /** BFS depth over active relations, default 1. */
  depth?: number;
  /** Only walk through entities of these types (the seed always counts). */
  types?: readonly string[];
  /** Most relations returned, default 50. */
  limit?: number;
}

/**
 * The graph with its maintenance operations. Names are matched case- and whitespace-
 * insensitively and through aliases. Methods reject with HomeAgentError code
 * `graph_not_found` for an unknown entity or relation and `graph_conflict` for a clash; they
 * reject with TypeError on empty names, and on storage failure with the storage's error.
 */
export interface GraphStore extends GraphMemory {
  /** One entity by name or alias. */
  entity(name: string): Promise<GraphEntity | undefined>;
  /** BFS from one named entity (exact name or alias), not from keywords. */
  neighbourhood(name: string, options?: NeighbourhoodOptions): Promise<GraphRecall>;
  /** Fold `drop` into `keep`: relations re-pointed, mentions summed, names kept as aliases. */
  merge(keep: string, drop: string): Promise<MergeResult>;
  /** Erase an entity, every relation touching it and sentences left without a fact. */
  purge(name: string): Promise<{ relations: number; sentences: number }>;
  /** Retire an entity: its active relations become `deleted` (kept in history). */
  deleteEntity(name: string): Promise<{ relations: number }>;
  /** Rename or retype an entity. */
  editEntity(name: string, patch: EntityPatch): Promise<GraphEntity>;
  /** Change, close, delete or restore one relation by id. */
  editRelation(id: number, patch: RelationPatch): Promise<GraphRelation>;
  /**
   * Facts matching `filter` with the entities they touch. Without a time bound only open,
   * active facts; unlike recall it reaches closed and deleted facts when a time asks for them.
   */
  browse(filter: GraphFilter): Promise<GraphRecall>;
  /**
   * Every version of fact `id`, oldest first: the facts of its subject and predicate (of its
   * object too when the predicate holds many values), closed and deleted ones included.
   */
  versions(id: number): Promise<GraphRelation[]>;
  /** The types of the active entities with their counts, most used first. */
  entityTypes(): Promise<GraphEntityType[]>;
  /** Counts, the most mentioned entities and the newest facts. */
  introspect(options?: { top?: number; recent?: number }): Promise<GraphIntrospection>;
}

/** One fact as the prompt and the tools show it: `subject —predicate→ object (date)`. */
export function formatFact(relation: GraphRelation, options: { id?: boolean } = {}): string {
  const since = day(relation.validFrom);
  const when = relation.validTo === undefined ? since : `${since} – ${day(relation.validTo)}`;
  const marks = [
    relation.status === "deleted" ? "deleted" : undefined,
    relation.confidence < 1 ? `confidence ${relation.confidence.toFixed(2)}` : undefined,
  ].filter((m) => m !== undefined);
  const tail = marks.length > 0 ? `, ${marks.join(", ")}` : "";
  const prefix = options.id ? `#${relation.id} ` : "";
  return `${prefix}${relation.source} —${relation.type}→ ${relation.target} (${when}${tail})`;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
