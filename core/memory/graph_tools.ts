/**
 * The graph tools the model calls (ARCHITECTURE.md "Memory Tools"): `memory_recall`,
 * `memory_commit`, `memory_merge`, `memory_purge`, `memory_edit`, `memory_delete_entity` and
 * `memory_introspect`, over a GraphStore. Arguments are validated by the kernel against the
 * schemas; what a schema cannot say is checked here and answered as an error result.
 */
import type { GraphRelation, Triple } from "./graph.ts";
import { formatFact, type GraphStore, type RelationPatch } from "./graph_store.ts";
import type { ToolContext, ToolResult } from "../kernel/tools.ts";
import type { RegisteredTool } from "../kernel/tools.ts";

/** Options of graphTools. */
export interface GraphToolsOptions {
  /** Told the ids of the facts `memory_recall` returned, so auto-injection skips them. */
  onRecalled?: (relationIds: readonly number[]) => void;
  /** The session a committed fact belongs to, when known. */
  sessionId?: () => string | undefined;
}

const NAME = { type: "string", minLength: 1, maxLength: 200 } as const;

const TRIPLE_SCHEMA = {
  type: "object",
  properties: {
    subject: { ...NAME, description: "Entity the fact is about, e.g. a person's name" },
    predicate: { ...NAME, description: "Relation, e.g. lives_in, likes, 居住地" },
    object: { ...NAME, description: "The other entity or value" },
    subject_type: { type: "string", description: "person, place, thing, … (optional)" },
    object_type: { type: "string" },
    confidence: { type: "number", minimum: 0, maximum: 1 },
  },
  required: ["subject", "predicate", "object"],
  additionalProperties: false,
} as const;

/** The kernel's graph tools over `store`. */
export function graphTools(store: GraphStore, options: GraphToolsOptions = {}): RegisteredTool[] {
  return [
    recallTool(store, options),
    commitTool(store, options),
    {
      name: "memory_merge",
      plugin: "core",
      description: "Merge two entities that are the same thing: `drop` is folded into `keep` " +
        "(its facts move over, its name stays as an alias).",
      parameters: objectSchema({ keep: NAME, drop: NAME }, ["keep", "drop"]),
      handler: async (args) => {
        const result = await store.merge(String(args.keep), String(args.drop));
        return `Merged "${args.drop}" into "${result.entity.name}": ${result.moved} facts ` +
          `moved, ${result.folded} duplicates folded.`;
      },
    },
    {
      name: "memory_purge",
      plugin: "core",
      description: "Erase an entity completely: the node, every fact touching it and their " +
        "source sentences. Irreversible; use when asked to forget something.",
      parameters: objectSchema({ name: NAME }, ["name"]),
      handler: async (args) => {
        const result = await store.purge(String(args.name));
        return `Erased "${args.name}": ${result.relations} facts and ${result.sentences} ` +
          `sentences removed.`;
      },
    },
    editTool(store),
    {
      name: "memory_delete_entity",
      plugin: "core",
      description: "Retire an entity and all its facts: they leave recall but stay in history " +
        "(memory_recall with include_history). A later mention brings the entity back.",
      parameters: objectSchema({ name: NAME }, ["name"]),
      handler: async (args) => {
        const result = await store.deleteEntity(String(args.name));
        return `Deleted "${args.name}" and ${result.relations} of its facts.`;
      },
    },
    {
      name: "memory_introspect",
      plugin: "core",
      description: "Memory statistics: counts, the most mentioned entities, the newest facts.",
      parameters: objectSchema({ top: { type: "integer", minimum: 1, maximum: 50 } }, []),
      parallelSafe: true,
      noMemory: true,
      handler: async (args) => {
        const top = Number(args.top ?? 10);
        const view = await store.introspect({ top, recent: top });
        return [
          `Entities ${view.entities}; facts ${view.relations} active, ${view.closed} ` +
          `superseded, ${view.deleted} deleted; sentences ${view.sentences}.`,
          `Most mentioned: ${
            view.topEntities.map((e) => `${e.name} (${e.type}, ${e.mentions})`).join(", ") ||
            "none"
          }`,
          "Newest facts:",
          ...view.recentRelations.map((r) => formatFact(r, { id: true })),
        ].join("\n");
      },
    },
  ];
}

function recallTool(store: GraphStore, options: GraphToolsOptions): RegisteredTool {
  return {
    name: "memory_recall",
    plugin: "core",
    description: "Recall facts from the knowledge graph around entities matching the keywords " +
      "(names, places, topics). Shows fact ids for memory_edit.",
    parameters: objectSchema({
      keywords: { type: "array", items: NAME, minItems: 1, maxItems: 20 },
      depth: { type: "integer", minimum: 1, maximum: 3, description: "BFS depth (2)" },
      limit: { type: "integer", minimum: 1, maximum: 200, description: "Most facts (30)" },
      include_history: {
        type: "boolean",
        description: "Also list superseded and deleted facts of the matched entities",
      },
    }, ["keywords"]),
    parallelSafe: true,
    noMemory: true,
    handler: async (args) => {
      const keywords = (args.keywords as string[]).map((k) => k.trim()).filter((k) => k !== "");
      if (keywords.length === 0) return error(`"keywords" holds only blank strings`);
      const found = await store.recall({
        keywords,
        depth: Number(args.depth ?? 2),
        limit: Number(args.limit ?? 30),
      });
      let lines = found.relations.map((r) => formatFact(r, { id: true }));
      options.onRecalled?.(found.relations.map((r) => r.id));
      if (args.include_history === true) lines = [...lines, ...await history(store, found)];
      if (lines.length === 0) return `No facts found for ${JSON.stringify(keywords)}.`;
      return lines.join("\n");
    },
  };
}

async function history(
  store: GraphStore,
  found: { relations: GraphRelation[]; entities: { name: string }[] },
): Promise<string[]> {
  const shown = new Set(found.relations.map((r) => r.id));
  const lines: string[] = [];
  for (const entity of found.entities.slice(0, 5)) {
    for (const r of await store.history(entity.name, { limit: 20 })) {
      if (shown.has(r.id) || (r.status === "active" && r.validTo === undefined)) continue;
      shown.add(r.id);
      lines.push(formatFact(r, { id: true }));
    }
  }
  return lines.length > 0 ? ["History:", ...lines] : [];
}

function commitTool(store: GraphStore, options: GraphToolsOptions): RegisteredTool {
  return {
    name: "memory_commit",
    plugin: "core",
    description: "Write facts (subject —predicate→ object) into the knowledge graph. Facts " +
      "add up: a second pet, sister or liked dish is one more fact. Only functional predicates " +
      "(name, age, birthday, lives_in/居住地, job/职业, works_at/工作单位, spouse, born_in/籍贯, …) " +
      "hold one value: a new one closes the old. To retire any other fact that stopped being " +
      "true, use memory_edit with close.",
    parameters: objectSchema({
      triples: { type: "array", items: TRIPLE_SCHEMA, minItems: 1, maxItems: 50 },
      sentence_text: {
        type: "string",
        maxLength: 2000,
        description: "The sentence the facts come from, kept as their source",
      },
    }, ["triples"]),
    handler: async (args, ctx: ToolContext) => {
      const raw = args.triples as Record<string, unknown>[];
      const sentence = typeof args.sentence_text === "string" && args.sentence_text.trim() !== ""
        ? args.sentence_text.trim()
        : undefined;
      const triples: Triple[] = [];
      for (const [i, t] of raw.entries()) {
        const [subject, predicate, object] = [t.subject, t.predicate, t.object].map((v) =>
          String(v).trim()
        );
        if (!subject || !predicate || !object) {
          return error(`Triple ${i} has a blank subject, predicate or object`);
        }
        triples.push({
          subject,
          predicate,
          object,
          subjectType: optionalString(t.subject_type),
          objectType: optionalString(t.object_type),
          confidence: typeof t.confidence === "number" ? t.confidence : undefined,
          sentence,
          turnIds: [ctx.turnId],
          sessionId: options.sessionId?.(),
        });
      }
      const r = await store.commit(triples);
      return `Committed ${triples.length} facts: ${r.relations} new, ${r.reinforced} already ` +
        `known (reinforced), ${r.closed} superseded facts closed.`;
    },
  };
}

function editTool(store: GraphStore): RegisteredTool {
  return {
    name: "memory_edit",
    plugin: "core",
    description: "Edit an entity (by `entity` name: new `name` or `type`) or a fact (by " +
      "`relation_id` from memory_recall: `predicate`, `object`, `confidence`, `status`, `close`).",
    parameters: objectSchema({
      entity: NAME,
      relation_id: { type: "integer", minimum: 1 },
      name: NAME,
      type: NAME,
      predicate: NAME,
      object: NAME,
      confidence: { type: "number", minimum: 0, maximum: 1 },
      status: { enum: ["active", "deleted"] },
      close: { type: "boolean", description: "Mark the fact as no longer true from now" },
    }, []),
    handler: async (args, _ctx) => {
      const hasEntity = args.entity !== undefined, hasRelation = args.relation_id !== undefined;
      if (hasEntity === hasRelation) return error(`Give exactly one of "entity" or "relation_id"`);
      if (hasEntity) {
        const stray = ["predicate", "object", "confidence", "status", "close"]
          .filter((k) => args[k] !== undefined);
        if (stray.length > 0) {
          return error(`${stray.join(", ")} apply to a relation, not an entity`);
        }
        if (args.name === undefined && args.type === undefined) {
          return error(`Editing entity "${args.entity}" needs "name" or "type"`);
        }
        const e = await store.editEntity(String(args.entity), {
          name: optionalString(args.name),
          type: optionalString(args.type),
        });
        return `Entity is now "${e.name}" (${e.type}).`;
      }
      const patch: RelationPatch = {
        type: optionalString(args.predicate),
        target: optionalString(args.object),
        confidence: typeof args.confidence === "number" ? args.confidence : undefined,
        status: args.status === "active" || args.status === "deleted" ? args.status : undefined,
        close: args.close === true ? true : undefined,
      };
      if (Object.values(patch).every((v) => v === undefined)) {
        return error(
          `Editing relation ${args.relation_id} needs predicate, object, confidence, status or close`,
        );
      }
      const r = await store.editRelation(Number(args.relation_id), patch);
      return `Fact is now: ${formatFact(r, { id: true })}`;
    },
  };
}

function objectSchema(properties: Record<string, unknown>, required: string[]) {
  return { type: "object", properties, required, additionalProperties: false };
}

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function error(content: string): ToolResult {
  return { content, isError: true };
}
