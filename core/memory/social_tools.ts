/**
 * The social layer (ARCHITECTURE.md "Other Memory Layers" → Social) over the graph: people are
 * entities of type `person`, traits are `trait:<name>` relations (each trait single-valued, so
 * a new value supersedes the old), relationships are relations between two persons.
 */
import { z } from "zod";
import type { GraphRelation } from "./graph.ts";
import { formatFact, type GraphStore } from "./graph_store.ts";
import type { RegisteredTool } from "../kernel/tools.ts";
import { defineTool } from "../kernel/define_tool.ts";

/** The entity type of a person. */
export const PERSON_TYPE = "person";
/** The predicate prefix of a trait relation. */
export const TRAIT_PREFIX = "trait:";

const NAME = z.lazy(() => z.string().min(1).max(200));
const TRAIT = z.lazy(() => z.string().min(1).max(60).regex(/^[^:\s][^:]*$/));

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
    defineTool({
      name: "person_query",
      description: "What memory holds about a person: traits, relationships, other facts.",
      input: () => z.object({ name: NAME }),
      parallelSafe: true,
      noMemory: true,
      handler: async ({ name }) => {
        const profile = await personProfile(store, name);
        if (!profile) return { content: `No person named "${name}" in memory.`, isError: true };
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
    }),
    defineTool({
      name: "person_set_trait",
      description: 'Set a person\'s trait (e.g. trait "birthday" = "March 3"); a new value ' +
        "supersedes the old one, which stays in history.",
      input: () => z.object({ person: NAME, trait: TRAIT, value: NAME }),
      handler: async (args, ctx) => {
        const trait = args.trait.trim();
        const result = await store.commit([{
          subject: args.person,
          subjectType: PERSON_TYPE,
          predicate: `${TRAIT_PREFIX}${trait}`,
          object: args.value,
          objectType: "trait",
          turnIds: [ctx.turnId],
        }]);
        const replaced = result.closed > 0 ? " (the previous value is kept in history)" : "";
        return `Set ${args.person}'s ${trait} to "${args.value}"${replaced}.`;
      },
    }),
    defineTool({
      name: "person_relate",
      description: "Record a relationship between two persons, e.g. Ann —sister_of→ Bo. It is " +
        "added beside the relationships already known, never in place of one.",
      input: () => z.object({ person: NAME, relation: NAME, other: NAME }),
      handler: async (args, ctx) => {
        await store.commit([{
          subject: args.person,
          subjectType: PERSON_TYPE,
          predicate: args.relation,
          object: args.other,
          objectType: PERSON_TYPE,
          turnIds: [ctx.turnId],
          keepOthers: true,
        }]);
        return `Recorded ${args.person} —${args.relation}→ ${args.other}.`;
      },
    }),
    defineTool({
      name: "person_network",
      description: "The people around a person: relationships up to `depth` hops (1–3).",
      input: () => z.object({ name: NAME, depth: z.int().min(1).max(3).optional() }),
      parallelSafe: true,
      noMemory: true,
      handler: async (args) => {
        const entity = await store.entity(args.name);
        if (!entity) return { content: `No person named "${args.name}" in memory.`, isError: true };
        const net = await store.neighbourhood(entity.name, {
          depth: args.depth ?? 2,
          types: [PERSON_TYPE],
        });
        const people = net.entities.filter((e) => e.id !== entity.id).map((e) => e.name);
        return [
          `${entity.name} knows of: ${people.join(", ") || "nobody yet"}`,
          ...lines(net.relations),
        ]
          .join("\n");
      },
    }),
  ];
}

function lines(relations: readonly GraphRelation[]): string[] {
  return relations.length > 0 ? relations.map((r) => `- ${formatFact(r)}`) : ["- none"];
}
