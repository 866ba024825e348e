/**
 * The memory beside the three tiers, opened with them by openMemory: the text log
 * (memory/text/), the knowledge base (knowledge/) and the heartbeats that move memories between
 * tiers. The heartbeats and the text log's turn observer start only when the kernel attaches
 * (`attach`), since the consolidation path and the stage host belong to the Agent.
 */
import {
  type Clock,
  type Consolidator,
  type DocumentStore,
  type Embedder,
  errorMessage,
  type HeartbeatStats,
  knowledgeSection,
  knowledgeTools,
  type Logger,
  type MemorySection,
  type RegisteredTool,
  type RelevanceContext,
  type StageHost,
} from "../core/mod.ts";
import { join } from "node:path";
import type { GraphDB } from "./graph/db.ts";
import { type HomePaths, pathExists } from "./home.ts";
import type { TextAnalyzer } from "./text/keywords.ts";
import { KnowledgeStore } from "./knowledge/base.ts";
import { TextLog } from "./log/text_log.ts";
import {
  HeartbeatState,
  type MemoryHeartbeat,
  type MemoryHeartbeatOptions,
  startMemoryHeartbeat,
} from "./loops/heartbeat.ts";
import { GraphMaintenanceDb } from "./graph/maintenance.ts";
import { recallSettingsFrom } from "./recall/config.ts";

/** Options of openUpkeep. */
export interface UpkeepOptions {
  paths: HomePaths;
  config: MemoryHeartbeatOptions["config"];
  clock: Clock;
  logger: Logger;
  embedder: Embedder;
  analyzer: TextAnalyzer;
  context: RelevanceContext;
  documents: DocumentStore;
  graph: GraphDB;
  /** How often the heartbeats look for intervals changed elsewhere (MemoryHeartbeatOptions). */
  watchMs?: number;
}

/** What the kernel attaches: its stage host (for the text log) and the consolidation path. */
export interface UpkeepAttachment {
  stages: Pick<StageHost, "register">;
  consolidator?: Consolidator;
}

/** The opened text log, knowledge base and (once attached) heartbeats. */
export interface Upkeep {
  textLog: TextLog;
  knowledge: KnowledgeStore;
  /** The "[Knowledge]" section for `text`; a failure is logged and yields none. */
  section(
    text: string,
    signal?: AbortSignal,
    vector?: Float32Array,
  ): Promise<MemorySection | undefined>;
  tools(): RegisteredTool[];
  /** Log every turn and start the heartbeats, until the result is disposed. Once only. */
  attach(kernel: UpkeepAttachment): Promise<AsyncDisposable>;
  /** The heartbeats' stats; [] before attach. */
  heartbeats(): HeartbeatStats[];
  /** Resolves once no heartbeat is running (a manual clock drives them: advance, then await). */
  whenIdle(): Promise<void>;
  /** Run one heartbeat now; rejects before attach. */
  runHeartbeat(name: Parameters<MemoryHeartbeat["runNow"]>[0]): Promise<HeartbeatStats>;
  /**
   * Write memory/heartbeat.json again without forgotten names: through the running heartbeats,
   * or (not attached: a command beside no daemon) the file itself, when there is one.
   */
  saveHeartbeatState(): Promise<void>;
  /** Stop the heartbeats, then close the text log. */
  close(): Promise<void>;
}

/** Open the text log and the knowledge base of a home. */
export async function openUpkeep(options: UpkeepOptions): Promise<Upkeep> {
  const { paths, logger } = options;
  const textLog = await TextLog.open({
    dir: paths.text,
    clock: options.clock,
    logger: logger.child({ component: "text_log" }),
    redactor: options.graph.forgotten,
  });
  const statePath = join(paths.memory, "heartbeat.json");
  const knowledge = new KnowledgeStore({
    dir: paths.knowledge,
    embedder: options.embedder,
    analyzer: options.analyzer,
    logger: logger.child({ component: "knowledge" }),
    recall: recallSettingsFrom(options.config, options.embedder),
  });
  const tools = knowledgeTools(knowledge);
  let heartbeat: MemoryHeartbeat | undefined;
  let maintenance: GraphMaintenanceDb | undefined;
  let detach: (() => void) | undefined;
  let detached: Promise<void> | undefined;
  // Stops what feeds the kernel, before the kernel itself closes.
  const detachKernel = () =>
    detached ??= (async () => {
      detach?.();
      await heartbeat?.stop();
      maintenance?.close();
    })();
  return {
    textLog,
    knowledge,
    async section(text, signal, vector) {
      try {
        return await knowledgeSection(knowledge, text, { signal, vector });
      } catch (error) {
        if (signal?.aborted) throw error;
        logger.error("Knowledge recall failed; answering without it", {
          error: errorMessage(error),
        });
        return undefined;
      }
    },
    tools: () => tools,
    async attach(kernel) {
      if (heartbeat) throw new TypeError("Cannot attach the memory upkeep twice");
      const logTurn = textLog.stageHandler();
      const detachers = (["after_toolcall", "after_output"] as const).map((stage) =>
        kernel.stages.register(stage, logTurn, { plugin: "core" })
      );
      detach = () => detachers.forEach((d) => d());
      maintenance = new GraphMaintenanceDb({ path: paths.graphDb, graph: options.graph });
      heartbeat = await startMemoryHeartbeat({
        ...options,
        statePath,
        maintenance,
        textLog,
        consolidator: kernel.consolidator,
        redactor: options.graph.forgotten,
      });
      return { [Symbol.asyncDispose]: detachKernel };
    },
    heartbeats: () => heartbeat?.stats() ?? [],
    whenIdle: () => heartbeat?.whenIdle() ?? Promise.resolve(),
    runHeartbeat(name) {
      if (!heartbeat) return Promise.reject(new TypeError("The memory heartbeats are not started"));
      return heartbeat.runNow(name);
    },
    async saveHeartbeatState() {
      if (heartbeat) return await heartbeat.saveState();
      if (!await pathExists(statePath)) return;
      await (await HeartbeatState.load(statePath, logger, options.graph.forgotten)).save();
    },
    async close() {
      await detachKernel();
      await textLog.close();
    },
  };
}
