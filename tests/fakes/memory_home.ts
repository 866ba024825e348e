/**
 * A whole home for memory tests: real tiers on temp files (openMemory), the real kernel
 * (createKernel) over the real ProviderManager and HTTP client pointed at a fake LLM server on
 * 127.0.0.1, the upkeep attached (text log of every turn, heartbeats), all on one ManualClock.
 */
import { createKernel, type Embedder, ProviderManager, type Reply } from "../../core/mod.ts";
import type { Kernel } from "../../core/agents/kernel.ts";
import { createProviderFactory } from "../../adapters/mod.ts";
import {
  createHashEmbedder,
  ensureHome,
  type HomePaths,
  openMemory,
  registerMemoryDefaults,
} from "../../memory/mod.ts";
import type { MemoryTiers } from "../../memory/open.ts";
import type { FakeLLMServer } from "../fixtures/fake_llm.ts";
import type { ManualClock } from "./clock.ts";
import { openTestRegistry, type TestRegistry } from "./config.ts";

/** Options of openTestHome. */
export interface TestHomeOptions {
  /** The LLM; without one every turn answers that no source is configured. */
  llm?: FakeLLMServer;
  /** Settings applied before the tiers open (intervals, context size, …). */
  config?: Record<string, unknown>;
  /** The agent's persona; default "You are a test agent.". */
  persona?: string;
  /** The vector space; default a 128-dimension hash space. */
  embedder?: Embedder;
}

/** A running home; dispose it to stop the kernel and close the tiers, then remove the folder. */
export interface TestHome extends AsyncDisposable {
  dir: string;
  paths: HomePaths;
  clock: ManualClock;
  config: TestRegistry;
  memory: MemoryTiers;
  kernel: Kernel;
  /** One owner message through the agent, from source `web`; resolves its reply. */
  say(text: string): Promise<Reply>;
  /** Move the clock by `ms` in `steps`, letting each heartbeat that falls due run to its end. */
  live(ms: number, steps?: number): Promise<void>;
  /** Close everything but keep the folder (to inspect its bytes); dispose still removes it. */
  close(): Promise<void>;
}

/** Open a fresh home in a temp folder. */
export async function openTestHome(options: TestHomeOptions = {}): Promise<TestHome> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-home-" });
  const paths = await ensureHome(dir);
  const config = openTestRegistry();
  const { registry, clock, logger } = config;
  registerMemoryDefaults(registry);
  registry.set("core.llm.retry_delay_ms", 0);
  if (options.llm) {
    registry.set("core.llm.sources.main.adapter", "openai");
    registry.set("core.llm.sources.main.base_url", options.llm.url);
    registry.set("core.llm.sources.main.model", "fake-model");
    registry.set("core.llm.sources.main.context_window", 32_000);
  }
  for (const [key, value] of Object.entries(options.config ?? {})) registry.set(key, value);
  const llm = new ProviderManager({
    clock,
    logger,
    sources: () => registry.llmSources(),
    factory: createProviderFactory({ clock, logger }),
    retryDelayMs: 0,
  });
  const memory = await openMemory({
    paths,
    config: registry,
    clock,
    logger,
    embedder: options.embedder ?? createHashEmbedder({ dim: 128 }),
    heartbeatWatchMs: 0, // settings change in this process only; no minute-by-minute polling
  });
  const kernel = createKernel({
    clock,
    logger,
    config: registry,
    llm,
    persona: () => options.persona ?? "You are a test agent.",
    memory,
    graph: memory.graph.graph,
  });
  // Backlog triage looks at the input queue every 10 s of clock time: it has nothing to do
  // with memory and would fire millions of times in a simulated year.
  await kernel.triage.close();
  const attached = await memory.upkeep.attach(kernel);
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      await attached[Symbol.asyncDispose]();
      await kernel[Symbol.asyncDispose]();
      await memory.close();
      config[Symbol.dispose]();
    })();
  return {
    dir,
    paths,
    clock,
    config,
    memory,
    kernel,
    say: (text) => kernel.agent.injectInputSync("web", text),
    async live(ms, steps = 1) {
      for (let i = 0; i < steps; i++) {
        // A due loop starts inside advance (its timer fires synchronously); whenIdle waits for
        // every run so started, and for the runs those lead to.
        clock.advance(ms / steps);
        await memory.upkeep.whenIdle();
      }
    },
    close,
    async [Symbol.asyncDispose]() {
      await close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
