/**
 * The memory of a home opened for the `memory` command (DESIGN.md §4): the graph and the
 * document store read directly (SQLite WAL and a busy timeout let this run beside a daemon),
 * without loading the context window for writing and without counting reads as accesses.
 */
import {
  type Clock,
  type ConfigRegistry,
  type ContextEvent,
  type GraphRecall,
  type Logger,
  type MemorySection,
  orderSections,
  replayContext,
  silentLogger,
} from "../../core/mod.ts";
import { JsonContextStore } from "../stores/context.ts";
import { DocStore } from "../docs/store.ts";
import { readEmbeddingConfig } from "../embed/config.ts";
import { selectEmbedder } from "../embed/spaces.ts";
import { spaceHint, type SpaceLayer, spaceLayers } from "../space_status.ts";
import { isSemantic } from "../embed/kind.ts";
import type { HomePaths } from "../home.ts";
import { createTextAnalyzer } from "../text/keywords.ts";
import { openGraphTier } from "../graph/tier.ts";
import type { GraphStats } from "../graph/db.ts";
import { exportMemory, type PortableCounts } from "../portable.ts";
import { exportMemoryDir } from "./markdown.ts";
import { KnowledgeStore } from "../knowledge/base.ts";
import { openMediaTier } from "../media/open.ts";
import { readHeartbeatStats } from "../loops/heartbeat.ts";
import type { HeartbeatStats } from "../../core/mod.ts";
import { join } from "node:path";

/** Options of openMemoryInspector. */
export interface MemoryInspectorOptions {
  paths: HomePaths;
  config: ConfigRegistry;
  clock: Clock;
  logger: Logger;
}

/** What `memory stats` prints. */
export interface MemoryStatsReport {
  vectorSpace: string;
  /** The space's provider and, when it matches words only, how to get recall by meaning. */
  embedding: {
    kind: string;
    semantic: boolean;
    hint?: string;
    problems: string[];
    layers: SpaceLayer[];
  };
  /** Events in memory/context.json; null when it is missing or unreadable. */
  contextEvents: number | null;
  documents: number;
  graph: GraphStats;
  /** What each heartbeat loop did, as the daemon last saved it. */
  heartbeats: HeartbeatStats[];
}

/** What `memory recall QUERY` prints: the prompt's sections and the raw hits behind them. */
export interface MemoryRecallReport {
  query: string;
  keywords: string[];
  sections: MemorySection[];
  graph: GraphRecall;
  documents: { id: string; summary: string; score: number; createdAt: string; turnIds: string[] }[];
}

/** The opened memory, read side. */
export interface MemoryInspector {
  stats(): Promise<MemoryStatsReport>;
  recall(query: string): Promise<MemoryRecallReport>;
  /** `memory export FILE.jsonl | DIR`: every tier as JSON lines (and Markdown in DIR). */
  export(path: string): Promise<PortableCounts & { file?: string; dir?: string }>;
  /** Close the stores and the vector space (an ONNX model's Worker). */
  close(): Promise<void>;
}

/** Open a home's memory stores for inspection. */
export async function openMemoryInspector(
  options: MemoryInspectorOptions,
): Promise<MemoryInspector> {
  const { paths, clock, logger } = options;
  const analyzer = await createTextAnalyzer();
  const selection = await selectEmbedder(readEmbeddingConfig(options.config), {
    logger,
    memoryDir: paths.memory,
    analyzer,
  });
  const { embedder } = selection;
  const tier = openGraphTier({ path: paths.graphDb, embedder, analyzer, clock, logger });
  const media = openMediaTier({
    dir: paths.media,
    graphDb: paths.graphDb,
    config: options.config,
    embedder,
    clock,
    logger,
  });
  // An import must not bring a forgotten name back into the documents either.
  const redactor = tier.graph.forgotten;
  const documents = await DocStore.open({
    dir: paths.docs,
    embedder,
    analyzer,
    clock,
    logger,
    redactor,
  });
  return {
    stats: async () => ({
      vectorSpace: embedder.fingerprint,
      embedding: {
        kind: selection.kind,
        semantic: isSemantic(selection.kind),
        hint: spaceHint(selection.kind, selection.failures),
        problems: selection.failures.map((f) => f.message),
        layers: spaceLayers(selection.kind, selection.failures),
      },
      contextEvents: await countContextEvents(paths.context),
      documents: documents.size(),
      graph: tier.stats(),
      heartbeats: await readHeartbeatStats(join(paths.memory, "heartbeat.json")),
    }),
    async recall(query) {
      const graph = await tier.indexer.recall(query);
      const index = await tier.section(query);
      const hits = await documents.query(query, { k: 3 });
      const related: MemorySection | undefined = hits.length === 0 ? undefined : {
        title: "Related Memory Docs",
        kind: "documents",
        lines: hits.map((h) =>
          `- (${new Date(h.document.createdAt).toISOString().slice(0, 10)}) ${h.document.summary}`
        ),
      };
      return {
        query,
        keywords: tier.indexer.keywords(query),
        sections: orderSections([index, related].filter((s) => s !== undefined)),
        graph,
        documents: hits.map((h) => ({
          id: h.document.id,
          summary: h.document.summary,
          score: h.score,
          createdAt: new Date(h.document.createdAt).toISOString(),
          turnIds: h.document.turnIds,
        })),
      };
    },
    async export(path) {
      const stores = {
        documents,
        graph: tier.graph,
        context: { events: () => events },
        knowledge: new KnowledgeStore({ dir: paths.knowledge, embedder, analyzer, logger }),
        media: media.tier,
      };
      const events = await readContextEvents(paths.context);
      // A FILE.jsonl is the JSON lines alone; anything else is a folder with the Markdown too.
      return path.endsWith(".jsonl")
        ? { file: path, ...await exportMemory(stores, path) }
        : await exportMemoryDir(stores, path);
    },
    async close() {
      media.close();
      tier.close();
      documents.close();
      await embedder.close?.();
    },
  };
}

/** The window's events as its snapshot and journal describe it, read without repairing. */
export async function readContextEvents(path: string): Promise<ContextEvent[]> {
  const stored = await new JsonContextStore({ path, logger: silentLogger }).read();
  return replayContext(stored).events;
}

/** Events in the window as its snapshot and journal describe it; null when missing or unreadable. */
async function countContextEvents(path: string): Promise<number | null> {
  try {
    const stored = await new JsonContextStore({ path, logger: silentLogger }).read();
    if (!stored.snapshot && stored.journal.length === 0) return null;
    return replayContext(stored).events.length;
  } catch {
    return null;
  }
}
