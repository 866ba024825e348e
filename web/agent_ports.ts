/** Ports of the web app built from the kernel's own objects (used by main.ts and tests). */
import {
  type Agent,
  type ConfigRegistry,
  type DocumentStore,
  EPHEMERAL_META,
  type GraphStore,
  type KnowledgeBase,
  type MemoryDocument,
  type MemoryForgetter,
  NO_TOOLS_META,
  type RelevanceContext,
} from "../core/mod.ts";
import type {
  ChatPort,
  ContextView,
  DocumentText,
  DocumentView,
  EventsPort,
  KnowledgePort,
  MemoryPort,
  SettingsPort,
} from "./ports.ts";

/** Chat through `agent.injectInput` from source "web"; the web flags become `Input.meta`. */
export function agentChatPort(agent: Agent): ChatPort {
  return {
    inject: (request) =>
      agent.injectInput("web", request.text, {
        channel: request.channel,
        onReply: request.onReply,
        signal: request.signal,
        ...(request.media?.length ? { media: request.media } : {}),
        meta: {
          ...(request.ephemeral ? { [EPHEMERAL_META]: true } : {}),
          ...(request.noTools ? { [NO_TOOLS_META]: true } : {}),
        },
      }),
    stop: () => ({ wasRunning: agent.stop().wasRunning }),
  };
}

/** Every event of the agent's bus. */
export function agentEventsPort(agent: Agent): EventsPort {
  return (handler) => agent.events.subscribe("*", handler);
}

/** The settings page over a ConfigRegistry (secrets stay masked). */
export function registrySettingsPort(registry: ConfigRegistry): SettingsPort {
  return {
    list: (prefix) => registry.list(prefix ?? ""),
    set: (key, value) => registry.set(key, value),
    setFromText: (key, text) => registry.setFromText(key, text),
    unset: (key) => registry.unset(key),
    describe: (key) => registry.describe(key),
  };
}

/** The parts of the memory tiers the memory view reads. */
export interface MemoryParts {
  graph: GraphStore;
  /** The working window; scores need a RelevanceContext, a plain window shows none. */
  context: Pick<RelevanceContext, "events"> & Partial<Pick<RelevanceContext, "scores">>;
  documents: MemoryPort["documents"];
  /** One document read whole; absent: its route answers 501. */
  document?: MemoryPort["document"];
  /** Forgetting across every tier; absent: the forget route answers 501. */
  forget?: MemoryForgetter;
}

/** The memory port over the tiers' objects. */
export function memoryPort(parts: MemoryParts): MemoryPort {
  const forgetter = parts.forget;
  return {
    graph: parts.graph,
    documents: parts.documents,
    ...(parts.document ? { document: parts.document } : {}),
    ...(forgetter ? { forget: (name: string) => forgetter.forget(name) } : {}),
    async context(query) {
      const events = parts.context.events();
      const last = events.at(-1);
      const q = query ?? (last?.input ?? last?.response ?? "");
      const scores = q !== "" && parts.context.scores ? await parts.context.scores(q) : [];
      const views: ContextView[] = events.map((e, i) => ({
        id: e.id,
        role: e.role,
        source: e.source,
        channel: e.channel,
        text: [e.input, e.response].filter((x) => x !== undefined).join("\n"),
        timestamp: e.timestamp,
        ...(scores[i] !== undefined ? { score: scores[i] } : {}),
      }));
      return { query: q, events: views };
    },
  };
}

/** The knowledge page over the core KnowledgeBase port (names are paths like "recipes/tea"). */
export function knowledgeBasePort(kb: KnowledgeBase): KnowledgePort {
  return {
    list: async () =>
      (await kb.list()).map((e) => ({ name: e.name, title: e.title, updatedAt: e.updatedAt })),
    async get(name) {
      const entry = (await kb.list()).find((e) => e.name === name);
      if (!entry) return undefined;
      return { name, title: entry.title, updatedAt: entry.updatedAt, content: await kb.read(name) };
    },
    async create(name, content) {
      const entry = await kb.create(name, content);
      return { name: entry.name, title: entry.title, updatedAt: entry.updatedAt, content };
    },
    async update(name, content) {
      const entry = await kb.create(name, content, { overwrite: true });
      return { name: entry.name, title: entry.title, updatedAt: entry.updatedAt, content };
    },
  };
}

/** A document store as the memory view reads it: search, and the newest from the index. */
export interface DocumentSource extends Pick<DocumentStore, "query"> {
  /** The `limit` newest documents' index rows (no file read). */
  recent(limit: number): DocumentView[];
  /** One document by id (not counted as an access). */
  get(id: string): Promise<MemoryDocument | undefined>;
}

/** One document as the memory view reads it whole. */
export function documentReader(store: DocumentSource): NonNullable<MemoryPort["document"]> {
  return async (id) => {
    const d = await store.get(id);
    if (!d) return undefined;
    const { summary, content, source, createdAt, accessCount, turnIds } = d;
    return {
      id: d.id,
      summary,
      content,
      source,
      createdAt,
      accessCount,
      turnIds,
    } satisfies DocumentText;
  };
}

/** The memory view's documents: a search (not counted as an access), or the newest ones. */
export function documentsPort(store: DocumentSource): MemoryPort["documents"] {
  return async (options) => {
    if (!options.query) return store.recent(options.limit).map((d) => ({ ...d }));
    const hits = await store.query(options.query, { k: options.limit, touch: false });
    return hits.map(({ document: d, score }): DocumentView => ({
      id: d.id,
      summary: d.summary,
      source: d.source,
      createdAt: d.createdAt,
      accessCount: d.accessCount,
      score,
    }));
  };
}
