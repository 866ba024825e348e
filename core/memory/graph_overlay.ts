/**
 * Graph memory for residents, over the port in graph.ts: an in-memory GraphMemory (a
 * resident's temp store, and the daemon's main graph until memory/graph.db is wired), the
 * overlay that isolates a resident's writes (reads see temp ∪ main, writes go to temp,
 * `reclaim` commits temp into main), and the two memory tools over any GraphMemory.
 */
import type {
  GraphEntity,
  GraphMemory,
  GraphQuery,
  GraphRecall,
  GraphRelation,
  Triple,
} from "./graph.ts";
import type { Clock } from "../ports.ts";
import type { RegisteredTool } from "../kernel/tools.ts";

const DEFAULT_DEPTH = 2;
const DEFAULT_LIMIT = 50;
const SEEDS_WITHOUT_KEYWORDS = 10;

const nameKey = (name: string) => name.trim().toLowerCase();
const edgeKey = (r: Pick<GraphRelation, "source" | "type" | "target">) =>
  JSON.stringify([nameKey(r.source), nameKey(r.type), nameKey(r.target)]);

/**
 * A GraphMemory held in Maps. Entities match keywords by case-insensitive substring; recall is
 * BFS over active relations in both directions. An identical active relation is stored once.
 */
export class InMemoryGraph implements GraphMemory {
  readonly #clock?: Pick<Clock, "now">;
  readonly #entities = new Map<string, GraphEntity>();
  readonly #relations = new Map<string, GraphRelation>();
  #nextId = 1;

  constructor(options: { clock?: Pick<Clock, "now"> } = {}) {
    this.#clock = options.clock;
  }

  commit(triples: readonly Triple[]): Promise<{ entities: number; relations: number }> {
    const now = this.#clock?.now() ?? 0;
    const touched = new Set<string>();
    let relations = 0;
    for (const t of triples) {
      this.#upsert(t.subject, t.subjectType, now, touched);
      this.#upsert(t.object, t.objectType, now, touched);
      const key = edgeKey({ source: t.subject, type: t.predicate, target: t.object });
      if (this.#relations.has(key)) continue;
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
    return Promise.resolve({ entities: touched.size, relations });
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

  commit(triples: readonly Triple[]): Promise<{ entities: number; relations: number }> {
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
    const result = await this.#main.commit(this.#pending);
    this.#pending = [];
    return result;
  }
}

/** `memory_recall` and `memory_commit` over `graph` (a resident gets them over its overlay). */
export function graphMemoryTools(graph: GraphMemory, plugin = "core"): RegisteredTool[] {
  return [
    {
      name: "memory_recall",
      plugin,
      description:
        "Recall facts from the knowledge graph, starting from entities named by keywords",
      parameters: {
        type: "object",
        properties: {
          keywords: { type: "array", items: { type: "string" }, minItems: 1 },
          depth: { type: "integer", minimum: 0, maximum: 4 },
          limit: { type: "integer", minimum: 1, maximum: 200 },
        },
        required: ["keywords"],
        additionalProperties: false,
      },
      parallelSafe: true,
      noMemory: true,
      handler: async (args) => {
        const found = await graph.recall({
          keywords: args.keywords as string[],
          depth: args.depth as number | undefined,
          limit: args.limit as number | undefined,
        });
        if (found.relations.length > 0) {
          return found.relations.map((r) => `${r.source} —${r.type}→ ${r.target}`).join("\n");
        }
        if (found.entities.length > 0) {
          return `Entities, no facts: ${found.entities.map((e) => e.name).join(", ")}`;
        }
        return "No facts found.";
      },
    },
    {
      name: "memory_commit",
      plugin,
      description: "Write facts (subject —predicate→ object) into the knowledge graph",
      parameters: {
        type: "object",
        properties: {
          triples: {
            type: "array",
            minItems: 1,
            items: {
              type: "object",
              properties: {
                subject: { type: "string", minLength: 1 },
                predicate: { type: "string", minLength: 1 },
                object: { type: "string", minLength: 1 },
                sentence: { type: "string" },
              },
              required: ["subject", "predicate", "object"],
              additionalProperties: false,
            },
          },
        },
        required: ["triples"],
        additionalProperties: false,
      },
      handler: async (args) => {
        const triples = args.triples as Triple[];
        const result = await graph.commit(triples);
        return `Committed ${triples.length} facts (${result.relations} new).`;
      },
    },
  ];
}
