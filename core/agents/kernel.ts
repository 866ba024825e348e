/**
 * The kernel the daemon runs: the main Agent with its residents, the child-spawning tool and
 * backlog triage (docs/scheduler.md), built together and closed together. Residents read
 * through and reclaim into the graph tier through the GraphMemory port.
 */
import { Agent } from "../kernel/agent.ts";
import type { LlmCaller } from "../llm/call.ts";
import type { RegisteredTool } from "../kernel/tools.ts";
import type { Clock, Logger } from "../ports.ts";
import type { Input } from "../input.ts";
import type { ContextWindow } from "../prompt/context.ts";
import type { MemorySection } from "../prompt/system_prompt.ts";
import type { ConfigRegistry } from "../config/registry.ts";
import type { SourceHealth } from "../llm/manager.ts";
import { llmTools } from "../llm/tools.ts";
import type { GraphMemory } from "../memory/graph.ts";
import type { MediaStore } from "../memory/media.ts";
import type { TextRanker } from "../memory/ranker.ts";
import { agentConsolidator, type Consolidator } from "../memory/consolidation.ts";
import { mediaTools } from "../memory/media_tools.ts";
import { MediaOutbox } from "../kernel/media_turn.ts";
import type { StageHost } from "../kernel/stages.ts";
import { ResidentPool } from "./residents.ts";
import { residentAgentsTool } from "./resident_tool.ts";
import { spawnChildTool } from "./children.ts";
import { BacklogTriage } from "./triage.ts";

/** What the kernel takes from the memory tiers. */
export interface KernelMemory {
  context: ContextWindow;
  /** Prompt sections for an input. */
  recall(input: Input, signal: AbortSignal): Promise<MemorySection[]>;
  /** The model-facing tools over the tiers. */
  tools(): RegisteredTool[];
  /** The media store (images in turns, the media tools). */
  media?: MediaStore;
  /** The memory's hybrid search, for tool_search and the prompt's relevance cuts. */
  ranker?: TextRanker;
}

/** Options of createKernel. */
export interface KernelOptions {
  clock: Clock;
  logger: Logger;
  config: ConfigRegistry;
  /** The LLM sources (the ProviderManager); the llm_* tools show their health. */
  llm: LlmCaller & { health(): SourceHealth[]; hasSources(): boolean };
  persona: () => string;
  memory: KernelMemory;
  /** The graph tier residents read through and reclaim into. */
  graph: GraphMemory;
  /** How long close() waits for cancelled turns to unwind before it moves on; default 5000. */
  unwindMs?: number;
}

/** How a stop treats the running turn. */
export type StopMode = "finish" | "cancel";

/** The main agent and its helpers, closed in one step (residents and triage first). */
export interface Kernel extends AsyncDisposable {
  agent: Agent;
  residents: ResidentPool;
  triage: BacklogTriage;
  /** The agent's stages (the memory upkeep logs every turn through them). */
  stages: Pick<StageHost, "register">;
  /** LLM work of the memory loops, as consolidation inputs of the agent. */
  consolidator: Consolidator;
  /**
   * Refuse new inputs and end the work in hand: "finish" lets it run for up to `graceMs`
   * (default `core.agent.stop_grace_ms`), "cancel" stops it at once; whatever still runs then
   * is cancelled. Resolves true when the work finished on its own. Channels stay open
   * meanwhile, so replies still reach their sender.
   */
  quiesce(mode: StopMode, graceMs?: number): Promise<boolean>;
}

/** Build the main agent, its resident pool, the child tool and backlog triage (started). */
export function createKernel(options: KernelOptions): Kernel {
  const { clock, config, llm, persona, memory, unwindMs = 5000 } = options;
  const outbox = new MediaOutbox();
  const media = memory.media ? mediaTools(memory.media, outbox) : [];
  const agent = new Agent({
    clock,
    logger: options.logger.child({ component: "kernel" }),
    config,
    llm,
    persona,
    context: memory.context,
    recall: (input, signal) => memory.recall(input, signal),
    media: memory.media,
    outbox,
    ranker: memory.ranker,
    toolSources: [
      () => memory.tools(),
      () => llmTools({ config, health: () => llm.health() }),
      () => media,
    ],
  });
  const helpers = { clock, logger: options.logger.child({ component: "helpers" }), config, llm };
  const residents = new ResidentPool({
    ...helpers,
    parent: agent,
    graph: options.graph,
    parentTools: () => agent.allTools(),
  });
  agent.tools.register(residentAgentsTool(residents), "core");
  agent.tools.register(spawnChildTool({ ...helpers, tools: () => agent.allTools() }), "core");
  const triage = new BacklogTriage({ ...helpers, agent, persona });
  triage.start();
  const bounded = (what: string, work: Promise<void>) =>
    within(clock, unwindMs, work).then((done) => {
      if (!done) options.logger.warn(`${what} did not end in time; going on`, { ms: unwindMs });
    });
  return {
    agent,
    residents,
    triage,
    stages: agent.stages,
    consolidator: agentConsolidator(agent, () => llm.hasSources()),
    async quiesce(mode, graceMs = config.get<number>("core.agent.stop_grace_ms")) {
      const finished = mode === "finish" && await within(clock, graceMs, agent.finish());
      if (!finished) await bounded("The cancelled turn", agent.close());
      return finished;
    },
    async [Symbol.asyncDispose]() {
      await triage.close();
      await residents.close();
      await bounded("The cancelled turn", agent.close());
    },
  };
}

/** Resolve true when `work` settles within `ms` on `clock`, false when the time runs out first. */
async function within(clock: Clock, ms: number, work: Promise<void>): Promise<boolean> {
  let timer: { cancel(): void } | undefined;
  const timeout = new Promise<false>((resolve) => timer = clock.setTimer(ms, () => resolve(false)));
  try {
    return await Promise.race([work.then(() => true as const), timeout]);
  } finally {
    timer?.cancel();
  }
}
