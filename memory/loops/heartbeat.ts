/**
 * The memory heartbeats (ARCHITECTURE.md "Memory Flow" ④ ⑤): five independent loops on the
 * injected Clock, with intervals from `core.memory.*` (0 disables one): distill (context prune
 * → documents), archive (cold documents → graph), merge (near-duplicate entities), review
 * (low-confidence relations), and the rule distiller over the text log. Loop bodies live in
 * memory/_loop_*.ts; scheduling, overlap and error handling in core/memory/heartbeat.ts.
 */
import {
  type Clock,
  type ConfigListener,
  type Consolidator,
  type DocumentStore,
  type GraphMaintenance,
  type GraphMemory,
  Heartbeat,
  type HeartbeatCounts,
  type HeartbeatStats,
  type HeartbeatTask,
  type KernelConfig,
  type Logger,
  type RelevanceContext,
  type TextRedactor,
} from "../../core/mod.ts";
import { loadHotLoops } from "../../wasm/mod.ts";
import { HeartbeatState } from "./_state.ts";
import { archiveColdDocuments } from "./_archive.ts";
import { mergeEntities, reviewRelations } from "./_merge_review.ts";
import { distillText } from "./distiller.ts";
import type { TextAnalyzer } from "../text/keywords.ts";
import type { TextLog } from "../log/text_log.ts";

export { HeartbeatState, readHeartbeatStats } from "./_state.ts";
export { fallbackTriples, KEYWORD_CONFIDENCE } from "./_archive.ts";
export { mergeCandidates, mergeKey } from "./_merge_review.ts";

/** The loop names, as `memory stats` shows them. */
export const MEMORY_LOOPS = ["distill", "archive", "merge", "review", "rule_distill"] as const;

/** Options of startMemoryHeartbeat. */
export interface MemoryHeartbeatOptions {
  clock: Clock;
  logger: Logger;
  /** The settings; with `onChange` (the ConfigRegistry) an interval change applies at once. */
  config: KernelConfig & { onChange?(listener: ConfigListener): () => void };
  /** How often intervals changed elsewhere (another process) are looked for; default 60 s, 0 off. */
  watchMs?: number;
  /** memory/heartbeat.json */
  statePath: string;
  context: Pick<RelevanceContext, "prune" | "events" | "flush">;
  documents: DocumentStore;
  graph: GraphMemory;
  /** Entity listing, merge and relation edits; without it merge and review do nothing. */
  maintenance?: GraphMaintenance;
  analyzer: TextAnalyzer;
  textLog: TextLog;
  /** LLM decisions through the consolidation path; absent or unavailable → fallbacks. */
  consolidator?: Consolidator;
  /** Forgotten names: the state file never keeps one (merge pairs, error texts). */
  redactor?: TextRedactor;
}

/** The running heartbeats. */
export interface MemoryHeartbeat {
  /** Every loop's stats. */
  stats(): HeartbeatStats[];
  /** Run one loop now (tests, the CLI); joins a run under way. */
  runNow(name: (typeof MEMORY_LOOPS)[number]): Promise<HeartbeatStats>;
  /** Resolves once no loop is running (drive the loops under a manual clock: advance, await). */
  whenIdle(): Promise<void>;
  /** Write the state file again (after a forget: without the forgotten names). */
  saveState(): Promise<void>;
  /** Stop the timers and wait for runs under way. */
  stop(): Promise<void>;
}

/** Load the state and start the five loops. */
export async function startMemoryHeartbeat(
  options: MemoryHeartbeatOptions,
): Promise<MemoryHeartbeat> {
  const logger = options.logger.child({ component: "heartbeat" });
  const state = await HeartbeatState.load(options.statePath, logger, options.redactor);
  const hot = loadHotLoops();
  const interval = (key: string) => () => options.config.get<number>(`core.memory.${key}`);
  const loop = (
    name: string,
    key: string,
    run: (signal: AbortSignal) => Promise<HeartbeatCounts>,
  ): HeartbeatTask => ({ name, intervalMs: interval(key), run });
  const common = (signal: AbortSignal) => ({
    state,
    logger,
    consolidator: options.consolidator,
    signal,
  });
  const tasks = [
    loop("distill", "distill_interval_ms", () => distillContext(options)),
    loop("archive", "archive_interval_ms", (signal) =>
      archiveColdDocuments({
        ...common(signal),
        documents: options.documents,
        graph: options.graph,
        analyzer: options.analyzer,
        now: options.clock.now(),
      })),
    loop(
      "merge",
      "merge_interval_ms",
      async (signal) =>
        options.maintenance
          ? await mergeEntities({ ...common(signal), graph: options.maintenance, hot })
          : { skipped: 1 },
    ),
    loop(
      "review",
      "review_interval_ms",
      async (signal) =>
        options.maintenance
          ? await reviewRelations({
            ...common(signal),
            graph: options.maintenance,
            below: options.config.get<number>("core.memory.review_below"),
          })
          : { skipped: 1 },
    ),
    loop("rule_distill", "rule_distill_interval_ms", () => ruleDistill(options, state)),
  ];
  const heartbeat = new Heartbeat({
    clock: options.clock,
    logger,
    tasks,
    watchMs: options.watchMs,
    restored: state.data.stats,
    onRun: async () => {
      state.data.stats = heartbeat.stats();
      await state.save();
    },
  });
  heartbeat.start();
  // A new interval applies now, not when the timer armed with the old one fires.
  const unsubscribe = options.config.onChange?.((key) => {
    if (key.startsWith("core.memory.") && key.endsWith("_interval_ms")) heartbeat.reschedule();
  });
  return {
    stats: () => heartbeat.stats(),
    runNow: (name) => heartbeat.runNow(name),
    whenIdle: () => heartbeat.whenIdle(),
    saveState: () => state.save(),
    async stop() {
      unsubscribe?.();
      await heartbeat.stop();
      await state.flush();
    },
  };
}

/** The distill loop: prune the context window against its newest input, then write it. */
async function distillContext(options: MemoryHeartbeatOptions): Promise<HeartbeatCounts> {
  const events = options.context.events();
  const query = [...events].reverse().find((e) => e.role === "user")?.input ?? "";
  const result = await options.context.prune(query);
  await options.context.flush();
  return { ...result };
}

/** The rule distiller: turns logged since the watermark → facts about their speakers. */
async function ruleDistill(
  options: MemoryHeartbeatOptions,
  state: HeartbeatState,
): Promise<HeartbeatCounts> {
  const { turns, watermark } = await options.textLog.readSince(state.data.textWatermark);
  const triples = turns.flatMap((turn) =>
    distillText(turn.input, { subject: turn.sender, turnIds: [turn.turnId] })
      .map((t) => ({ ...t, validFrom: turn.inputAt }))
  );
  for (let i = 0; i < triples.length; i += 500) {
    await options.graph.commit(triples.slice(i, i + 500));
  }
  if (watermark) {
    state.data.textWatermark = watermark;
    await state.save();
  }
  return { turns: turns.length, triples: triples.length };
}
