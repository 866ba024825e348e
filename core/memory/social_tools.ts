/**
 * The social layer (ARCHITECTURE.md "Other Memory Layers" → Social) over the graph: people are
 * entities of type `person`, traits are `trait:<name>` relations (each trait single-valued, so
 * a new value supersedes the old), relationships are relations between two persons.
 */
import type { GraphRelation } from "./graph.ts";
import { formatFact, type GraphStore } from "./graph_store.ts";
import type { RegisteredTool, ToolContext } from "../kernel/tools.ts";

/** The entity type of a person. */
export const PERSON_TYPE = "person";
/** The predicate prefix of a trait relation. */
export const TRAIT_PREFIX = "trait:";

const NAME = { type: "string", minLength: 1, maxLength: 200 } as const;
const TRAIT = { type: "string", minLength: 1, maxLength: 60, pattern: "^[^:\\s][^:]*$" } as const;

/** A person as `person_query` shows it. */
export interface PersonProfile {
  name: string;
  mentions: number;
  traits: Record<string, string>;
  relations: GraphRelation[];
  facts: GraphRelation[];
}

/** Read a person's profile: traits, relationships to other persons, other active facts. */
export async function personProfile(
  store: GraphStore,
  name: string,
): Promise<PersonProfile | undefined> {
  const entity = await store.entity(name);
  if (!entity) return undefined;
  const near = await store.neighbourhood(entity.name, { depth: 1, limit: 200 });
  const persons = new Set(
    near.entities.filter((e) => e.type === PERSON_TYPE && e.id !== entity.id).map((e) => e.name),
  );
  const traits: Record<string, string> = {};
  const relations: GraphRelation[] = [], facts: GraphRelation[] = [];
  for (const r of near.relations) {
    if (r.type.startsWith(TRAIT_PREFIX) && r.source === entity.name) {
      traits[r.type.slice(TRAIT_PREFIX.length)] = r.target;
    } else if (persons.has(r.source) || persons.has(r.target)) relations.push(r);
    else facts.push(r);
  }
  return { name: entity.name, mentions: entity.mentions, traits, relations, facts };
}

/** `person_query`, `person_set_trait`, `person_relate` and `person_network` over `store`. */
export function socialTools(store: GraphStore): RegisteredTool[] {
  return [
    {
      name: "person_query",
      plugin: "core",
      description: "What memory holds about a person: traits, relationships, other facts.",
      parameters: schema({ name: NAME }, ["name"]),
      parallelSafe: true,
      noMemory: true,
      handler: async (args) => {
        const profile = await personProfile(store, String(args.name));
        if (!profile) {
          return { content: `No person named "${args.name}" in memory.`, isError: true };
        }
        const traits = Object.entries(profile.traits).map(([k, v]) => `${k}: ${v}`).join("; ");
        return [
          `${profile.name} (mentioned ${profile.mentions} times)`,
          `Traits: ${traits || "none"}`,
          "Relationships:",
          ...lines(profile.relations),
          "Other facts:",
          ...lines(profile.facts),
        ].join("\n");
      },
    },
    {
      name: "person_set_trait",
      plugin: "core",
      description: 'Set a person\'s trait (e.g. trait "birthday" = "March 3"); a new value ' +
        "supersedes the old one, which stays in history.",
      parameters: schema({ person: NAME, trait: TRAIT, value: NAME }, ["person", "trait", "value"]),
      handler: async (args, ctx: ToolContext) => {
        const trait = String(args.trait).trim();
        const result = await store.commit([{
          subject: String(args.person),
          subjectType: PERSON_TYPE,
          predicate: `${TRAIT_PREFIX}${trait}`,
          object: String(args.value),
          objectType: "trait",
          turnIds: [ctx.turnId],
        }]);
        const replaced = result.closed > 0 ? " (the previous value is kept in history)" : "";
        return `Set ${args.person}'s ${trait} to "${args.value}"${replaced}.`;
      },
    },
    {
      name: "person_relate",
      plugin: "core",
      description: "Record a relationship between two persons, e.g. Ann —sister_of→ Bo. It is " +
        "added beside the relationships already known, never in place of one.",
      parameters: schema({ person: NAME, relation: NAME, other: NAME }, [
        "person",
        "relation",
        "other",
      ]),
      handler: async (args, ctx: ToolContext) => {
        await store.commit([{
          subject: String(args.person),
          subjectType: PERSON_TYPE,
          predicate: String(args.relation),
          object: String(args.other),
          objectType: PERSON_TYPE,
          turnIds: [ctx.turnId],
          keepOthers: true,
        }]);
        return `Recorded ${args.person} —${args.relation}→ ${args.other}.`;
      },
    },
    {
      name: "person_network",
      plugin: "core",
      description: "The people around a person: relationships up to `depth` hops (1–3).",
      parameters: schema({ name: NAME, depth: { type: "integer", minimum: 1, maximum: 3 } }, [
        "name",
      ]),
      parallelSafe: true,
      noMemory: true,
      handler: async (args) => {
        const entity = await store.entity(String(args.name));
        if (!entity) return { content: `No person named "${args.name}" in memory.`, isError: true };
        const net = await store.neighbourhood(entity.name, {
          depth: Number(args.depth ?? 2),
          types: [PERSON_TYPE],
        });
        const people = net.entities.filter((e) => e.id !== entity.id).map((e) => e.name);
        return [
          `${entity.name} knows of: ${people.join(", ") || "nobody yet"}`,
          ...lines(net.relations),
        ]
          .join("\n");
      },
    },
  ];
}

function lines(relations: readonly GraphRelation[]): string[] {
  return relations.length > 0 ? relations.map((r) => `- ${formatFact(r)}`) : ["- none"];
}

function schema(properties: Record<string, unknown>, required: string[]) {
  return { type: "object", properties, required, additionalProperties: false };
}
