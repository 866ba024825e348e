/**
 * The knowledge graph as the kernel sees it (ARCHITECTURE.md "Graph Layer"): a port only.
 * memory/ implements it on SQLite (memory/graph.db); residents wrap it in an overlay whose
 * writes stay apart until reclaimed.
 */

/** One fact to commit: subject —predicate→ object, with where it came from. */
export interface Triple {
  subject: string;
  predicate: string;
  object: string;
  subjectType?: string;
  objectType?: string;
  /** 0..1; rule and tool facts default to 1, distilled ones lower. */
  confidence?: number;
  /** The sentence the fact was taken from. */
  sentence?: string;
  /** Turns the fact came from, so recall maps back to conversation turns. */
  turnIds?: string[];
  sessionId?: string;
  /** When the fact became true (ms); defaults to the commit time. */
  validFrom?: number;
  /**
   * Never close another value of the predicate, even a functional one: the fact is added
   * beside what is known (`person_relate`). Absent: a functional predicate's new value closes
   * the old one.
   */
  keepOthers?: boolean;
}

/** An entity (node). */
export interface GraphEntity {
  id: number;
  name: string;
  type: string;
  mentions: number;
  createdAt: number;
  updatedAt: number;
  /** Other names that resolve to this entity (kept by merges and renames). */
  aliases?: string[];
}

/** A relation (directed edge). A superseded fact is closed (`validTo`), not contradicted. */
export interface GraphRelation {
  id: number;
  source: string;
  target: string;
  type: string;
  confidence: number;
  status: "active" | "deleted";
  validFrom: number;
  validTo?: number;
  sentence?: string;
  turnIds: string[];
  createdAt: number;
  /** How many commits stated this fact. */
  mentions?: number;
  sessionId?: string;
}

/** What a recall returns: the seed entities, what BFS reached, and the active edges between. */
export interface GraphRecall {
  entities: GraphEntity[];
  relations: GraphRelation[];
}

/** A recall query: keyword seeds (and an optional query vector for entity-vector seeds). */
export interface GraphQuery {
  keywords: readonly string[];
  /**
   * The query's vector, or its promise: the keyword seeds are found while it is computed (the
   * sentence model embeds in a Worker).
   */
  vector?: Float32Array | Promise<Float32Array>;
  /** BFS depth over active relations; default 2. */
  depth?: number;
  /** Most relations returned; default 50. */
  limit?: number;
}

/** What a commit did. */
export interface CommitResult {
  /** Distinct entities upserted. */
  entities: number;
  /** New relations inserted. */
  relations: number;
  /** Identical active relations stated again (confidence and mentions bumped instead). */
  reinforced: number;
  /** Superseded relations of functional predicates closed (`validTo` set). */
  closed: number;
  /** Triples refused because they name something the owner asked to forget. */
  forgotten?: number;
}

/**
 * The graph port: what the model's `memory_recall` and `memory_commit` need, so the main graph
 * and a resident's overlay offer the same two tools. Methods reject on storage failure.
 */
export interface GraphMemory {
  /**
   * Upsert the entities and insert or reinforce the relations of `triples`, all or nothing. A
   * store that knows functional predicates closes the facts a new value supersedes.
   */
  commit(triples: readonly Triple[]): Promise<CommitResult>;
  /** Seeds by keyword (and vector), then BFS; with no keywords, the most mentioned entities. */
  recall(query: GraphQuery): Promise<GraphRecall>;
  /**
   * Every relation of an entity, closed and deleted ones too, newest first. Rejects with
   * HomeAgentError code `graph_not_found` for an entity the graph does not know.
   */
  history(name: string, options?: { limit?: number }): Promise<GraphRelation[]>;
  /** Counts for `status` and `memory stats`. */
  stats(): Promise<{ entities: number; relations: number }>;
}
