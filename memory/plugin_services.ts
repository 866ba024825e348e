/**
 * The memory services external plugins reach through the restricted SDK (ARCHITECTURE.md
 * "Restricted External Plugin API"): recall and commit, documents, knowledge, and the social
 * layer read-only. Plain data in and out; the plugin host gates each by capability.
 */
import { distillText } from "./loops/distiller.ts";
import type { MemoryTiers } from "./open.ts";

/** The services for the plugin host (structurally its PluginServices). */
export function memoryPluginServices(memory: MemoryTiers) {
  const { graph, documents, upkeep } = memory;
  const fact = (r: { source: string; type: string; target: string; validFrom: number }) => ({
    subject: r.source,
    predicate: r.type,
    object: r.target,
    since: new Date(r.validFrom).toISOString(),
  });
  return {
    /** Facts the graph recalls for `query`, best first. */
    async memoryRecall(query: string, k: number, signal?: AbortSignal): Promise<unknown[]> {
      const recall = await graph.indexer.recall(query, { limit: k, signal });
      return recall.relations.slice(0, k).map(fact);
    },
    /** Store `text` as a document and commit the facts the rule distiller finds in it. */
    async memoryCommit(text: string, tags: string[], source: string): Promise<{ id: string }> {
      const { id } = await documents.insert({ content: text, tags, source });
      const triples = distillText(text, { subject: source });
      if (triples.length > 0) await graph.graph.commit(triples);
      return { id };
    },
    async docQuery(query: string, k: number): Promise<unknown[]> {
      return (await documents.query(query, { k })).map((h) => ({
        id: h.document.id,
        summary: h.document.summary,
        content: h.document.content,
        score: h.score,
      }));
    },
    docCommit(doc: { content: string; summary?: string; tags?: string[]; source: string }) {
      return documents.insert(doc);
    },
    async knowledgeSearch(query: string, k: number): Promise<unknown[]> {
      return (await upkeep.knowledge.search(query, { k })).map((h) => ({
        name: h.entry.name,
        title: h.entry.title,
        snippet: h.snippet,
        score: h.score,
      }));
    },
    async knowledgeCreate(name: string, content: string): Promise<void> {
      await upkeep.knowledge.create(name, content);
    },
    async socialGetPerson(name: string): Promise<unknown> {
      const entity = await graph.graph.entity(name);
      if (!entity) return null;
      const facts = (await graph.graph.history(name)).filter((r) => r.validTo === undefined);
      return {
        name: entity.name,
        type: entity.type,
        mentions: entity.mentions,
        facts: facts.map(fact),
      };
    },
    async socialListPersons(): Promise<unknown[]> {
      const view = await graph.graph.introspect({ top: 200, recent: 0 });
      return view.topEntities.filter((e) => e.type === "person").map((e) => e.name);
    },
    async socialGetRelations(name: string): Promise<unknown[]> {
      const near = await graph.graph.neighbourhood(name);
      return near.relations.map(fact);
    },
  };
}
