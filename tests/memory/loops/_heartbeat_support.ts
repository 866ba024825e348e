/** A home's memory parts on temp files, wired to startMemoryHeartbeat under a ManualClock. */
import { join } from "node:path";
import {
  agentConsolidator,
  type Consolidator,
  eventsToDocuments,
  InMemoryGraph,
  type MemoryDocument,
  RelevanceContext,
} from "../../../core/mod.ts";
import { createHashEmbedder } from "../../../memory/embed/hash.ts";
import { createTextAnalyzer } from "../../../memory/text/keywords.ts";
import { DocStore } from "../../../memory/docs/store.ts";
import { GraphDB } from "../../../memory/graph/db.ts";
import { JsonContextStore } from "../../../memory/stores/context.ts";
import { TextLog } from "../../../memory/log/text_log.ts";
import { type MemoryHeartbeat, startMemoryHeartbeat } from "../../../memory/loops/heartbeat.ts";
import { GraphMaintenanceDb } from "../../../memory/graph/maintenance.ts";
import { MEMORY_LOOP_KEYS } from "../../../memory/loops/settings.ts";
import { registerMemoryDefaults } from "../../../memory/settings.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { openTestRegistry } from "../../fakes/config.ts";
import { createTestKernel, type TestKernel } from "../../fakes/kernel.ts";
import { type FakeLLMServer, startFakeOpenAI } from "../../fixtures/fake_llm.ts";

/** Minutes in ms. */
export const MIN = 60_000;

const analyzer = await createTextAnalyzer();

/** Everything a loop test touches. */
export interface Rig {
  dir: string;
  clock: ManualClock;
  logger: MemoryLogger;
  graph: GraphDB;
  maintenance: GraphMaintenanceDb;
  documents: DocStore;
  context: RelevanceContext;
  textLog: TextLog;
  config: ReturnType<typeof openTestRegistry>;
  /** The fake LLM server and kernel, when the rig has an LLM. */
  server?: FakeLLMServer;
  kernel?: TestKernel;
  /** (Re)start the heartbeats over the same state file. */
  start(options?: { memoryGraph?: InMemoryGraph }): Promise<MemoryHeartbeat>;
  /** Insert a document and make it cold (73 h idle). */
  coldDocument(content: string, summary?: string): Promise<MemoryDocument>;
}

/**
 * Build a rig, run `fn`, tear everything down. `llm: "down"` configures a source whose server
 * is already closed (every call is refused at connect).
 */
export async function withRig(
  fn: (rig: Rig) => Promise<void>,
  options: { llm?: boolean | "down" } = {},
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-heartbeat-" });
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const embedder = createHashEmbedder({ dim: 128 });
  const config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  const graph = GraphDB.open({ path: join(dir, "graph.db"), clock });
  const maintenance = new GraphMaintenanceDb({ path: join(dir, "graph.db"), graph });
  const documents = await DocStore.open({
    dir: join(dir, "docs"),
    embedder,
    analyzer,
    clock,
    logger,
  });
  const context = await RelevanceContext.load({
    clock,
    logger,
    embedder,
    store: new JsonContextStore({ path: join(dir, "context.json"), logger }),
    archive: async (events) => {
      await documents.insertMany(eventsToDocuments(events));
    },
    topK: () => 2,
  });
  const textLog = await TextLog.open({ dir: join(dir, "text"), clock, logger });
  const server = options.llm ? startFakeOpenAI() : undefined;
  if (options.llm === "down") await server!.close();
  const kernel = server ? createTestKernel({ sources: [{ name: "main", server }] }) : undefined;
  const consolidator: Consolidator | undefined = kernel
    ? agentConsolidator(kernel.agent, () => kernel.providers.hasSources())
    : undefined;
  const running: MemoryHeartbeat[] = [];
  const rig: Rig = {
    dir,
    clock,
    logger,
    graph,
    maintenance,
    documents,
    context,
    textLog,
    config,
    server,
    kernel,
    async start(startOptions = {}) {
      const heartbeat = await startMemoryHeartbeat({
        clock,
        logger,
        config: config.registry,
        statePath: join(dir, "heartbeat.json"),
        context,
        documents,
        graph: startOptions.memoryGraph ?? graph,
        maintenance,
        analyzer,
        textLog,
        consolidator,
      });
      running.push(heartbeat);
      return heartbeat;
    },
    async coldDocument(content, summary) {
      const { id } = await documents.insert({ content, summary, source: "cli", turnIds: ["t1"] });
      clock.advance(73 * 60 * MIN);
      return (await documents.findCold({ now: clock.now(), idleMs: 0, maxAccess: 99 }))
        .find((d) => d.id === id)!;
    },
  };
  try {
    await fn(rig);
  } finally {
    for (const h of running) await h.stop();
    if (kernel) await kernel[Symbol.asyncDispose]();
    await server?.close();
    await context.flush();
    await textLog.close();
    maintenance.close();
    graph.close();
    documents.close();
    config[Symbol.dispose]();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Tick `clock` by `ms`, then wait (real time) until loop `name` has run `runs` times. */
export async function tickUntilRun(
  rig: Rig,
  heartbeat: MemoryHeartbeat,
  name: string,
  ms: number,
  runs = 1,
): Promise<void> {
  await rig.clock.tick(ms);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const stats = heartbeat.stats().find((s) => s.name === name)!;
    if (stats.runs + stats.failures >= runs && !stats.running) return;
    if (Date.now() > deadline) throw new Error(`Heartbeat "${name}" did not run ${runs} time(s)`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The last user message of a fake LLM request. */
export function lastUserText(body: { messages: Record<string, unknown>[] }): string {
  const user = body.messages.filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

/** Disable every loop but `name` (interval 0). */
export function only(rig: Rig, name: string): void {
  for (const k of MEMORY_LOOP_KEYS) {
    if (k.key !== `core.memory.${name}_interval_ms`) rig.config.registry.set(k.key, 0);
  }
}
