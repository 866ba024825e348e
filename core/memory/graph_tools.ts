/**
 * The graph tools the model calls (ARCHITECTURE.md "Memory Tools"). `memory_recall` and
 * `memory_commit` work over any GraphMemory, so the main agent (over the graph tier) and a
 * resident (over its overlay) get the same two tools; `memory_merge`, `memory_purge`,
 * `memory_edit`, `memory_delete_entity` and `memory_introspect` need the whole GraphStore.
 * The kernel checks arguments against each zod schema; what a schema cannot say is checked
 * here and answered as an error result.
 */
import { z } from "zod";
import type { GraphMemory, GraphRelation, Triple } from "./graph.ts";
import { formatFact, type GraphStore, type RelationPatch } from "./graph_store.ts";
import type { RegisteredTool, ToolResult } from "../kernel/tools.ts";
import { defineTool } from "../kernel/define_tool.ts";
import { forgetTool, type MemoryForgetter } from "./forget.ts";

/** Options of graphMemoryTools and graphTools. */
export interface GraphToolsOptions {
  /** Told the ids of the facts `memory_recall` returned, so auto-injection skips them. */
  onRecalled?: (relationIds: readonly number[]) => void;
  /** The session a committed fact belongs to, when known. */
  sessionId?: () => string | undefined;
  /**
   * Forgetting across every tier: `memory_purge` goes through it. Without it `memory_purge`
   * erases the graph's entity only (a graph with no other tier, as in tests).
   */
  forget?: MemoryForgetter;
}

const NAME = z.lazy(() => z.string().min(1).max(200));
const CONFIDENCE = z.lazy(() => z.number().min(0).max(1));

// The descriptions are sent with every request to a small model (core.tools.always): each word
// is paid on every call, so they say what a name does not.
const TRIPLE = z.lazy(() =>
  z.object({
    subject: NAME.describe("e.g. a person's name"),
    predicate: NAME.describe("e.g. lives_in, likes, 居住地"),
    object: NAME.describe("entity or value"),
    subject_type: z.string().optional().describe("person, place, thing, …"),
    object_type: z.string().optional(),
    confidence: CONFIDENCE.optional(),
  })
);

/** `memory_recall` and `memory_commit` over `graph`: the main graph, or a resident's overlay. */
export function graphMemoryTools(
  graph: GraphMemory,
  options: GraphToolsOptions = {},
): RegisteredTool[] {
  return [recallTool(graph, options), commitTool(graph, options)];
}

/** The kernel's graph tools over `store`: the two of graphMemoryTools and the maintenance ones. */
export function graphTools(store: GraphStore, options: GraphToolsOptions = {}): RegisteredTool[] {
  return [
    ...graphMemoryTools(store, options),
    defineTool({
      name: "memory_merge",
      description: "Merge two entities that are the same thing: `drop` is folded into `keep` " +
        "(its facts move over, its name stays as an alias).",
      input: () => z.object({ keep: NAME, drop: NAME }),
      handler: async ({ keep, drop }) => {
        const result = await store.merge(keep, drop);
        return `Merged "${drop}" into "${result.entity.name}": ${result.moved} facts ` +
          `moved, ${result.folded} duplicates folded.`;
      },
    }),
    options.forget ? forgetTool(options.forget) : defineTool({
      name: "memory_purge",
      description: "Erase an entity completely: the node, every fact touching it and their " +
        "source sentences. Irreversible; use when asked to forget something.",
      input: () => z.object({ name: NAME }),
      handler: async ({ name }) => {
        const result = await store.purge(name);
        return `Erased "${name}": ${result.relations} facts and ${result.sentences} ` +
          `sentences removed.`;
      },
    }),
    editTool(store),
    defineTool({
      name: "memory_delete_entity",
      description: "Retire an entity and all its facts: they leave recall but stay in history " +
        "(memory_recall with include_history). A later mention brings the entity back.",
      input: () => z.object({ name: NAME }),
      handler: async ({ name }) => {
        const result = await store.deleteEntity(name);
        return `Deleted "${name}" and ${result.relations} of its facts.`;
      },
    }),
    introspectTool(store),
  ];
}

function recallTool(graph: GraphMemory, options: GraphToolsOptions): RegisteredTool {
  return defineTool({
    name: "memory_recall",
    description: "Recall knowledge-graph facts around the entities the keywords name (people, " +
      "places, topics); each shows its #id.",
    input: () =>
      z.object({
        keywords: z.array(NAME).min(1).max(20),
        depth: z.int().min(1).max(3).optional().describe("hops (2)"),
        limit: z.int().min(1).max(200).optional().describe("most facts (30)"),
        include_history: z.boolean().optional().describe("also superseded and deleted facts"),
      }),
    parallelSafe: true,
    noMemory: true,
    handler: async (args) => {
      const keywords = args.keywords.map((k) => k.trim()).filter((k) => k !== "");
      if (keywords.length === 0) return error(`"keywords" holds only blank strings`);
      const found = await graph.recall({
        keywords,
        depth: args.depth ?? 2,
        limit: args.limit ?? 30,
      });
      let lines = found.relations.map((r) => formatFact(r, { id: true }));
      options.onRecalled?.(found.relations.map((r) => r.id));
      if (args.include_history) lines = [...lines, ...await history(graph, found)];
      if (lines.length === 0) return `No facts found for ${JSON.stringify(keywords)}.`;
      return lines.join("\n");
    },
  });
}

async function history(
  graph: GraphMemory,
  found: { relations: GraphRelation[]; entities: { name: string }[] },
): Promise<string[]> {
  const shown = new Set(found.relations.map((r) => r.id));
  const lines: string[] = [];
  for (const entity of found.entities.slice(0, 5)) {
    for (const r of await graph.history(entity.name, { limit: 20 })) {
      if (shown.has(r.id) || (r.status === "active" && r.validTo === undefined)) continue;
      shown.add(r.id);
      lines.push(formatFact(r, { id: true }));
    }
  }
  return lines.length > 0 ? ["History:", ...lines] : [];
}

function commitTool(graph: GraphMemory, options: GraphToolsOptions): RegisteredTool {
  return defineTool({
    name: "memory_commit",
    description: "Save facts (subject —predicate→ object) to the knowledge graph. Facts add " +
      "up (a second pet is one more); only functional predicates (name, age, birthday, " +
      "lives_in/居住地, job/职业, works_at, spouse, born_in, …) keep one value, a new one " +
      "closing the old. memory_edit with close retires any other fact no longer true.",
    input: () =>
      z.object({
        triples: z.array(TRIPLE).min(1).max(50),
        sentence_text: z.string().max(2000).optional().describe("their source sentence"),
      }),
    handler: async (args, ctx) => {
      const sentence = optionalString(args.sentence_text);
      const triples: Triple[] = [];
      for (const [i, t] of args.triples.entries()) {
        const [subject, predicate, object] = [t.subject, t.predicate, t.object].map((v) =>
          v.trim()
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
          confidence: t.confidence,
          sentence,
          turnIds: [ctx.turnId],
          sessionId: options.sessionId?.(),
        });
      }
      const r = await graph.commit(triples);
      const refused = r.forgotten
        ? ` ${r.forgotten} not stored: they name something the owner asked to forget.`
        : "";
      return `Committed ${triples.length - (r.forgotten ?? 0)} facts: ${r.relations} new, ` +
        `${r.reinforced} already known (reinforced), ${r.closed} superseded facts closed.` +
        refused;
    },
  });
}

const RELATION_FIELDS = ["predicate", "object", "confidence", "status", "close"] as const;

const EDIT = () =>
  z.object({
    entity: NAME.optional(),
    relation_id: z.int().min(1).optional(),
    name: NAME.optional(),
    type: NAME.optional(),
    predicate: NAME.optional(),
    object: NAME.optional(),
    confidence: CONFIDENCE.optional(),
    status: z.enum(["active", "deleted"]).optional(),
    close: z.boolean().optional().describe("Mark the fact as no longer true from now"),
  });

function editTool(store: GraphStore): RegisteredTool {
  return defineTool({
    name: "memory_edit",
    description: "Edit an entity (by `entity` name: new `name` or `type`) or a fact (by " +
      "`relation_id` from memory_recall: `predicate`, `object`, `confidence`, `status`, `close`).",
    input: EDIT,
    handler: (args) => {
      const { entity, relation_id: relationId } = args;
      if (entity !== undefined && relationId === undefined) return editEntity(store, entity, args);
      if (entity === undefined && relationId !== undefined) {
        return editRelation(store, relationId, args);
      }
      return error(`Give exactly one of "entity" or "relation_id"`);
    },
  });
}

async function editEntity(
  store: GraphStore,
  entity: string,
  args: z.output<ReturnType<typeof EDIT>>,
): Promise<string | ToolResult> {
  const stray = RELATION_FIELDS.filter((k) => args[k] !== undefined);
  if (stray.length > 0) return error(`${stray.join(", ")} apply to a relation, not an entity`);
  if (args.name === undefined && args.type === undefined) {
    return error(`Editing entity "${entity}" needs "name" or "type"`);
  }
  const e = await store.editEntity(entity, {
    name: optionalString(args.name),
    type: optionalString(args.type),
  });
  return `Entity is now "${e.name}" (${e.type}).`;
}

async function editRelation(
  store: GraphStore,
  id: number,
  args: z.output<ReturnType<typeof EDIT>>,
): Promise<string | ToolResult> {
  const patch: RelationPatch = {
    type: optionalString(args.predicate),
    target: optionalString(args.object),
    confidence: args.confidence,
    status: args.status,
    close: args.close === true ? true : undefined,
  };
  if (Object.values(patch).every((v) => v === undefined)) {
    return error(`Editing relation ${id} needs predicate, object, confidence, status or close`);
  }
  const r = await store.editRelation(id, patch);
  return `Fact is now: ${formatFact(r, { id: true })}`;
}

function introspectTool(store: GraphStore): RegisteredTool {
  return defineTool({
    name: "memory_introspect",
    description: "Memory statistics: counts, the most mentioned entities, the newest facts.",
    input: () => z.object({ top: z.int().min(1).max(50).optional() }),
    parallelSafe: true,
    noMemory: true,
    handler: async (args) => {
      const top = args.top ?? 10;
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
  });
}

function optionalString(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}

function error(content: string): ToolResult {
  return { content, isError: true };
}
