/**
 * The graph tier of a home as the daemon and the CLI open it: GraphDB at memory/graph.db, the
 * Indexer over it, the "[Memory Index]" section for an input, and the graph and social tools
 * (with `memory_recall` telling the Indexer what the model already fetched).
 */
import {
  type Clock,
  errorMessage,
  graphTools,
  type Logger,
  type MemoryForgetter,
  type MemorySection,
  type RegisteredTool,
  socialTools,
} from "../../core/mod.ts";
import type { Embedder } from "../../core/mod.ts";
import { GraphDB, type GraphStats } from "./db.ts";
import { GraphIndexer } from "./indexer.ts";
import type { RecallSettingsSource } from "../recall/config.ts";
import type { QueryVector } from "../recall/query.ts";
import type { MarkLifetime } from "../recall/marks.ts";
import type { TextAnalyzer } from "../text/keywords.ts";

/** Options of openGraphTier. */
export interface GraphTierOptions {
  /** memory/graph.db, or ":memory:". */
  path: string;
  embedder: Embedder;
  analyzer: TextAnalyzer;
  clock: Clock;
  logger: Logger;
  /** Recall's dense/keyword mix and recency decay; default the space's defaults. */
  recall?: RecallSettingsSource;
  /** How long a fact fetched with memory_recall stays out of the [Memory Index]. */
  recalledFor?: () => MarkLifetime;
}

/** The opened graph tier. */
export interface GraphTier {
  graph: GraphDB;
  indexer: GraphIndexer;
  /**
   * The "[Memory Index]" section for `text` (after the turns of `context`, oldest first, with
   * the query's `vector` when the caller has it); a failure is logged and yields none.
   */
  section(
    text: string,
    signal?: AbortSignal,
    context?: readonly string[],
    vector?: QueryVector,
  ): Promise<MemorySection | undefined>;
  /** memory_* and person_* tools; `memory_purge` forgets through `forget` when given. */
  tools(options?: { forget?: MemoryForgetter }): RegisteredTool[];
  /** Counts (synchronous SQLite). */
  stats(): GraphStats;
  close(): void;
}

/** Open the graph tier. Throws DatabaseError when the database cannot be opened. */
export function openGraphTier(options: GraphTierOptions): GraphTier {
  const logger = options.logger.child({ component: "graph" });
  const graph = GraphDB.open({
    path: options.path,
    clock: options.clock,
    embedder: options.embedder,
    logger,
    recall: options.recall,
  });
  const indexer = new GraphIndexer({
    graph,
    analyzer: options.analyzer,
    embedder: options.embedder,
    recall: options.recall,
    clock: options.clock,
    recalledFor: options.recalledFor,
  });
  const tools = (forget?: MemoryForgetter) => [
    ...graphTools(graph, { onRecalled: (ids) => indexer.markRecalled(ids), forget }),
    ...socialTools(graph),
  ];
  return {
    graph,
    indexer,
    async section(text, signal, context, vector) {
      try {
        return await indexer.section(text, { signal, context, vector });
      } catch (error) {
        if (signal?.aborted) throw error;
        logger.error("Graph recall failed; answering without it", { error: errorMessage(error) });
        return undefined;
      }
    },
    tools: (toolOptions) => tools(toolOptions?.forget),
    stats: () => graph.counts(),
    close: () => graph.close(),
  };
}
