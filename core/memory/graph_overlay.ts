/**
 * Graph memory for residents, over the port in graph.ts: an in-memory GraphMemory (a
 * resident's temp store, and the daemon's main graph until memory/graph.db is wired), the
 * overlay that isolates a resident's writes (reads see temp ∪ main, writes go to temp,
 * `reclaim` commits temp into main). The tools over either are graph_tools.ts's.
 */
import type {
  CommitResult,
  GraphEntity,
  GraphMemory,
  GraphQuery,
  GraphRecall,
  GraphRelation,
  Triple,
} from "./graph.ts";
import type { Clock } from "../ports.ts";
import { HomeAgentError } from "../errors.ts";

const DEFAULT_DEPTH = 2;
const DEFAULT_LIMIT = 50;
const SEEDS_WITHOUT_KEYWORDS = 10;

const nameKey = (name: string) => name.trim().toLowerCase();
const edgeKey = (r: Pick<GraphRelation, "source" | "type" | "target">) =>
  JSON.stringify([nameKey(r.source), nameKey(r.type), nameKey(r.target)]);

/**
 * A GraphMemory held in Maps. Entities match keywords by case-insensitive substring; recall is
 * BFS over active relations in both directions. An identical relation is stored once (a repeat
 * counts as reinforced); no predicate is single-valued, so nothing is ever closed.
 */
export class InMemoryGraph implements GraphMemory {
  readonly #clock?: Pick<Clock, "now">;
  readonly #entities = new Map<string, GraphEntity>();
  readonly #relations = new Map<string, GraphRelation>();
  #nextId = 1;

  constructor(options: { clock?: Pick<Clock, "now"> } = {}) {
    this.#clock = options.clock;
  }

  commit(triples: readonly Triple[]): Promise<CommitResult> {
    const now = this.#clock?.now() ?? 0;
    const touched = new Set<string>();
    let relations = 0, reinforced = 0;
    for (const t of triples) {
      this.#upsert(t.subject, t.subjectType, now, touched);
      this.#upsert(t.object, t.objectType, now, touched);
      const key = edgeKey({ source: t.subject, type: t.predicate, target: t.object });
      if (this.#relations.has(key)) {
        reinforced++;
        continue;
      }
      this.#relations.set(key, {
        id: this.#nextId++,
        source: t.subject,
        target: t.object,
        type: t.predicate,
        confidence: t.confidence ?? 1,
        status: "active",
        validFrom: t.validFrom ?? now,
        sentence: t.sentence,
        turnIds: t.turnIds ?? [],
        createdAt: now,
      });
      relations++;
    }
    return Promise.resolve({ entities: touched.size, relations, reinforced, closed: 0 });
  }

  recall(query: GraphQuery): Promise<GraphRecall> {
    const words = query.keywords.map(nameKey).filter((w) => w !== "");
    const all = [...this.#entities.values()];
    const seeds = words.length > 0
      ? all.filter((e) => words.some((w) => nameKey(e.name).includes(w)))
      : all.sort((a, b) => b.mentions - a.mentions).slice(0, SEEDS_WITHOUT_KEYWORDS);
    const reached = new Set(seeds.map((e) => nameKey(e.name)));
    let frontier = [...reached];
    for (let hop = 0; hop < (query.depth ?? DEFAULT_DEPTH) && frontier.length > 0; hop++) {
      const next: string[] = [];
      for (const r of this.#relations.values()) {
        for (const [from, to] of [[r.source, r.target], [r.target, r.source]]) {
          if (frontier.includes(nameKey(from!)) && !reached.has(nameKey(to!))) {
            reached.add(nameKey(to!));
            next.push(nameKey(to!));
          }
        }
      }
      frontier = next;
    }
    const relations = [...this.#relations.values()]
      .filter((r) => reached.has(nameKey(r.source)) && reached.has(nameKey(r.target)))
      .slice(0, query.limit ?? DEFAULT_LIMIT);
    const entities = [...reached].map((k) => this.#entities.get(k)!);
    return Promise.resolve({ entities, relations });
  }

  history(name: string, options: { limit?: number } = {}): Promise<GraphRelation[]> {
    const key = nameKey(name);
    if (!this.#entities.has(key)) return Promise.reject(notFound(name));
    const touching = [...this.#relations.values()]
      .filter((r) => nameKey(r.source) === key || nameKey(r.target) === key)
      .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
    return Promise.resolve(touching.slice(0, options.limit ?? DEFAULT_LIMIT));
  }

  stats(): Promise<{ entities: number; relations: number }> {
    return Promise.resolve({ entities: this.#entities.size, relations: this.#relations.size });
  }

  #upsert(name: string, type: string | undefined, now: number, touched: Set<string>): void {
    const key = nameKey(name);
    touched.add(key);
    const known = this.#entities.get(key);
    if (known) {
      known.mentions++;
      known.updatedAt = now;
      if (type && known.type === "entity") known.type = type;
      return;
    }
    const id = this.#nextId++;
    this.#entities.set(key, {
      id,
      name: name.trim(),
      type: type ?? "entity",
      mentions: 1,
      createdAt: now,
      updatedAt: now,
    });
  }
}

/**
 * A resident's view of the graph: reads see its own temp facts plus `main`'s (main is also
 * searched from the entities the temp facts reached, so a path through both is found); writes
 * stay in temp until `reclaim` commits them into `main`. Dropping the overlay discards them.
 * In a recall, temp-only entities and relations carry negative ids (ids are per store).
 */
export class OverlayGraph implements GraphMemory {
  readonly #main: GraphMemory;
  readonly #temp: InMemoryGraph;
  #pending: Triple[] = [];

  constructor(main: GraphMemory, options: { clock?: Pick<Clock, "now"> } = {}) {
    this.#main = main;
    this.#temp = new InMemoryGraph(options);
  }

  commit(triples: readonly Triple[]): Promise<CommitResult> {
    this.#pending.push(...triples.map((t) => ({ ...t })));
    return this.#temp.commit(triples);
  }

  async recall(query: GraphQuery): Promise<GraphRecall> {
    const own = await this.#temp.recall(query);
    const names = own.entities.map((e) => e.name);
    const shared = await this.#main.recall({ ...query, keywords: [...query.keywords, ...names] });
    const entities = new Map(shared.entities.map((e) => [nameKey(e.name), e]));
    for (const e of own.entities) {
      if (!entities.has(nameKey(e.name))) entities.set(nameKey(e.name), { ...e, id: -e.id });
    }
    const relations = new Map(shared.relations.map((r) => [edgeKey(r), r]));
    for (const r of own.relations) {
      if (!relations.has(edgeKey(r))) relations.set(edgeKey(r), { ...r, id: -r.id });
    }
    return {
      entities: [...entities.values()],
      relations: [...relations.values()].slice(0, query.limit ?? DEFAULT_LIMIT),
    };
  }

  /** Main's history of `name` with the temp facts (negative ids) first; either may not know it. */
  async history(name: string, options: { limit?: number } = {}): Promise<GraphRelation[]> {
    const [own, shared] = await Promise.all([
      orUnknown(this.#temp.history(name, options)),
      orUnknown(this.#main.history(name, options)),
    ]);
    if (own === undefined && shared === undefined) throw notFound(name);
    const known = new Set((shared ?? []).map(edgeKey));
    const mine = (own ?? []).filter((r) => !known.has(edgeKey(r)))
      .map((r) => ({ ...r, id: -r.id }));
    return [...mine, ...shared ?? []].slice(0, options.limit ?? DEFAULT_LIMIT);
  }

  async stats(): Promise<{ entities: number; relations: number }> {
    const [main, temp] = await Promise.all([this.#main.stats(), this.#temp.stats()]);
    return { entities: main.entities + temp.entities, relations: main.relations + temp.relations };
  }

  /** Facts written here and not yet reclaimed, in commit order. */
  pending(): Triple[] {
    return [...this.#pending];
  }

  /** Commit the temp facts into main (all or nothing, as main commits) and empty temp. */
  async reclaim(): Promise<{ entities: number; relations: number }> {
    if (this.#pending.length === 0) return { entities: 0, relations: 0 };
    const { entities, relations } = await this.#main.commit(this.#pending);
    this.#pending = [];
    return { entities, relations };
  }
}

function notFound(name: string): HomeAgentError {
  return new HomeAgentError("graph_not_found", `No entity named "${name}" in memory`);
}

/** The history, or undefined when the store does not know the entity. */
async function orUnknown(history: Promise<GraphRelation[]>): Promise<GraphRelation[] | undefined> {
  try {
    return await history;
  } catch (error) {
    if (error instanceof HomeAgentError && error.code === "graph_not_found") return undefined;
    throw error;
  }
}
