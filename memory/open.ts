/**
 * The memory tiers of one home, assembled: the vector space, the analyzer, the document store
 * and the relevance context over them, plus what the kernel takes from them (recall for the
 * prompt and the document tools). main.ts and the evaluation both build memory this way.
 */
import { join } from "node:path";
import type {
  Clock,
  ConfigRegistry,
  Embedder,
  HeartbeatStats,
  Input,
  Logger,
  MemoryForgetter,
  MemorySection,
  RegisteredTool,
  TextRanker,
} from "../core/mod.ts";
import { documentTools, errorMessage, eventsToDocuments, RelevanceContext } from "../core/mod.ts";
import { JsonContextStore } from "./stores/context.ts";
import { DocStore } from "./docs/store.ts";
import { readEmbeddingConfig } from "./embed/config.ts";
import { selectEmbedder } from "./embed/spaces.ts";
import { Reembedder } from "./embed/reembed.ts";
import { reembedTargets, spaceHint, spaceLayers, type VectorSpaceStatus } from "./space_status.ts";
import { isSemantic, kindOf } from "./embed/kind.ts";
import type { HomePaths } from "./home.ts";
import { autoRecall } from "./auto_recall.ts";
import { markLifetimeFrom, recallSettingsFrom } from "./recall/config.ts";
import { createMemoryRanker } from "./ranker.ts";
import { createTextAnalyzer, type TextAnalyzer } from "./text/keywords.ts";
import { type GraphTier, openGraphTier } from "./graph/tier.ts";
import type { GraphStats } from "./graph/db.ts";
import { openUpkeep, type Upkeep } from "./upkeep.ts";
import { type OpenedMedia, openMediaTier, withImageEncoder } from "./media/open.ts";
import type { MediaTier } from "./media/store.ts";
import type { MediaStatus } from "../core/mod.ts";
import { createForgetter } from "./forget/forget.ts";
import { type ImportCounts, importMemory } from "./portable.ts";

/** Options of openMemory. */
export interface OpenMemoryOptions {
  paths: HomePaths;
  config: ConfigRegistry;
  clock: Clock;
  logger: Logger;
  /** Use this space instead of the configured one (tests, evaluation). */
  embedder?: Embedder;
  /**
   * How often the heartbeats look for loop intervals another process changed in config.db;
   * default 60 s, 0 off (a test that drives a clock through months).
   */
  heartbeatWatchMs?: number;
}

/** The opened tiers; disposing them is close(). */
export interface MemoryTiers extends AsyncDisposable {
  embedder: Embedder;
  analyzer: TextAnalyzer;
  /** The memory's hybrid search over any texts: tool_search and the prompt's relevance cuts. */
  ranker: TextRanker;
  documents: DocStore;
  context: RelevanceContext;
  /** The knowledge graph (memory/graph.db) and its Indexer. */
  graph: GraphTier;
  /** The text log, the knowledge base and the heartbeats (`upkeep.attach` starts them). */
  upkeep: Upkeep;
  /** Images as blocks of the graph (memory/media); `media.enabled` false when switched off. */
  media: MediaTier;
  /** Prompt sections for `input`: the "[Memory Index]" of the graph, related documents. */
  recall(input: Input, signal: AbortSignal): Promise<MemorySection[]>;
  /** The kernel tools over these tiers. */
  tools(): RegisteredTool[];
  /** `memory forget NAME`, `memory_purge` and the web page's forget: a name out of every tier. */
  forget: MemoryForgetter;
  /** `memory import FILE` into these tiers (documents and graph); resolves the counts. */
  importFile(path: string): Promise<ImportCounts>;
  /** Sizes for `status` and `memory stats`. */
  stats(): {
    contextEvents: number;
    documents: number;
    vectorSpace: string;
    /** The active space, how to enable a better one, re-embedding progress. */
    embedding: VectorSpaceStatus;
    graph: GraphStats;
    knowledge: number;
    heartbeats: HeartbeatStats[];
    media: MediaStatus;
  };
  /**
   * Re-embed what is stored in another space (context, documents, graph entities) at background
   * priority, with progress in the log and in `stats().embedding.reembed`; resolves when done
   * and never rejects.
   */
  reembedInBackground(signal?: AbortSignal): Promise<void>;
  /** reembedInBackground() until close(), which cancels and awaits it. */
  startReembedding(): void;
  /** Cancel background work, write the context window and close the stores. Once only. */
  close(): Promise<void>;
}

/** Open the memory tiers of a home. */
export async function openMemory(options: OpenMemoryOptions): Promise<MemoryTiers> {
  const { paths, config, clock, logger } = options;
  const analyzer = await createTextAnalyzer();
  const embedConfig = readEmbeddingConfig(config);
  const selection = options.embedder
    ? { embedder: options.embedder, kind: kindOf(options.embedder.fingerprint), failures: [] }
    : await selectEmbedder(embedConfig, {
      logger: logger.child({ component: "embedding" }),
      memoryDir: paths.memory,
      analyzer,
    });
  const text = selection.embedder;
  // The unified space: the text model paired with an image encoder, when one is configured.
  const paired = await withImageEncoder(text, config, logger.child({ component: "embedding" }));
  const embedder = paired.embedder;
  const hint = spaceHint(selection.kind, selection.failures);
  const layers = spaceLayers(selection.kind, selection.failures);
  logger.info("Vector space", {
    fingerprint: embedder.fingerprint,
    kind: selection.kind,
    hint,
    missing: layers.filter((l) => l.enable).map((l) => `${l.layer}: ${l.state}`),
  });
  const recall = recallSettingsFrom(config, embedder);
  // The graph first: its tombstones (forgotten names) guard every tier's writes.
  const graph = openGraphTier({
    path: paths.graphDb,
    embedder,
    analyzer,
    clock,
    logger,
    recall,
    recalledFor: markLifetimeFrom(config),
  });
  const redactor = graph.graph.forgotten;
  const documents = await DocStore.open({
    dir: paths.docs,
    embedder,
    analyzer,
    recall,
    clock,
    logger: logger.child({ component: "documents" }),
    redactor,
  });
  const context = await RelevanceContext.load({
    clock,
    logger: logger.child({ component: "context" }),
    embedder,
    store: new JsonContextStore({ path: paths.context, logger }),
    archive: async (events) => {
      await documents.insertMany(eventsToDocuments(events));
    },
    topK: () => config.get<number>("core.agent.max_context_size"),
    redactor,
  });
  await dropRecalledDocuments(context, documents, logger);
  const upkeep = await openUpkeep({
    paths,
    config,
    clock,
    logger,
    embedder,
    analyzer,
    context,
    documents,
    graph: graph.graph,
    watchMs: options.heartbeatWatchMs,
  });
  const media: OpenedMedia = openMediaTier({
    dir: paths.media,
    graphDb: paths.graphDb,
    config,
    embedder,
    clock,
    logger,
    failure: paired.failure,
  });
  const forgetter = createForgetter({
    graph: graph.graph,
    documents,
    context,
    textLog: upkeep.textLog,
    knowledge: upkeep.knowledge,
    heartbeatState: () => upkeep.saveHeartbeatState(),
    homeFiles: {
      root: paths.root,
      logs: paths.logs,
      skip: [paths.agentfs, paths.media, join(paths.memory, "models"), paths.plugins],
    },
    clock,
    logger: logger.child({ component: "forget" }),
  });
  // Forgetting may take media blocks with the sentences it erases; their blobs go right after.
  const forget: typeof forgetter = {
    async forget(name) {
      const report = await forgetter.forget(name);
      await media.tier.sweep();
      return report;
    },
  };
  const tools = [
    ...documentTools(documents, context),
    ...graph.tools({ forget }),
    ...upkeep.tools(),
  ];
  const reembedder = new Reembedder({
    targets: reembedTargets({ context, documents, graph: graph.graph }),
    logger: logger.child({ component: "embedding" }),
    clock,
  });
  const spaceStatus = (): VectorSpaceStatus => ({
    fingerprint: embedder.fingerprint,
    kind: selection.kind,
    model: selection.kind === "onnx" && embedConfig.onnxName ? embedConfig.onnxName : undefined,
    semantic: isSemantic(selection.kind),
    problems: selection.failures.map((f) => f.message),
    hint,
    layers,
    reembed: reembedder.status(),
  });
  const background = new AbortController();
  let reembedding: Promise<void> = Promise.resolve();
  let closing: Promise<void> | undefined;
  const tiers: MemoryTiers = {
    embedder,
    analyzer,
    ranker: createMemoryRanker({
      embedder,
      analyzer,
      settings: recall,
      known: () => context.knownVectors(),
      logger: logger.child({ component: "ranker" }),
    }),
    documents,
    context,
    graph,
    upkeep,
    media: media.tier,
    recall: (input, signal) =>
      autoRecall(input, signal, {
        embedder,
        analyzer,
        context,
        documents,
        graph,
        upkeep,
        settings: recall,
      }),
    tools: () => tools,
    forget,
    importFile: (path) =>
      importMemory(
        { documents, graph: graph.graph, context, knowledge: upkeep.knowledge, media: media.tier },
        path,
      ),
    stats: () => ({
      contextEvents: context.size(),
      documents: documents.size(),
      vectorSpace: embedder.fingerprint,
      embedding: spaceStatus(),
      graph: graph.stats(),
      knowledge: upkeep.knowledge.size(),
      heartbeats: upkeep.heartbeats(),
      media: {
        ...media.tier.status(),
        ...(media.unsupported() ? { unsupported: media.unsupported() } : {}),
      },
    }),
    async reembedInBackground(signal) {
      await reembedder.run(signal);
      await media.reembed(signal);
    },
    startReembedding() {
      reembedding = tiers.reembedInBackground(background.signal);
    },
    close() {
      return closing ??= (async () => {
        background.abort();
        await reembedding;
        await upkeep.close();
        await context.flush();
        documents.close();
        media.close();
        graph.close();
        await paired.close?.();
        // Only the text space built here is ours to close (an ONNX model's Worker ends with it).
        if (!options.embedder) await text.close?.();
      })();
    },
    [Symbol.asyncDispose]: () => tiers.close(),
  };
  return tiers;
}

/**
 * `doc_query` makes the window hold a document (as a `doc:<id>` event) before it deletes the
 * document; a crash in between leaves both. The window's copy wins, so nothing is doubled.
 */
async function dropRecalledDocuments(
  context: RelevanceContext,
  documents: DocStore,
  logger: Logger,
): Promise<void> {
  for (const event of context.events()) {
    if (event.role !== "cold_storage" || !event.id.startsWith("doc:")) continue;
    const id = event.id.slice("doc:".length);
    try {
      if (await documents.remove(id)) {
        logger.warn("Removed a document already moved back into the context window", { id });
      }
    } catch (error) {
      logger.error("Cannot remove a document moved back into the context window", {
        id,
        error: errorMessage(error),
      });
    }
  }
}
