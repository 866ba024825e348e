/**
 * A whole kernel for tests: a real ConfigRegistry on in-memory SQLite, the real ProviderManager
 * and HTTP clients pointed at fake LLM servers on 127.0.0.1, and an Agent.
 */
import {
  Agent,
  type AgentOptions,
  type Clock,
  type KernelEvent,
  MediaOutbox,
  mediaTools,
  ProviderManager,
  type Reply,
  type UsageLedger,
} from "../../core/mod.ts";
import { createProviderFactory, systemClock } from "../../adapters/mod.ts";
import type { FakeLLMServer } from "../fixtures/fake_llm.ts";
import { openTestRegistry, type TestRegistry } from "./config.ts";
import { MemoryLogger } from "./logger.ts";

/** One LLM source of the test kernel. */
export interface TestSource {
  name: string;
  server: FakeLLMServer;
  adapter?: "openai" | "ollama";
  /** `context_window` in tokens; default 32,000. */
  contextWindow?: number;
  /** Declares `vision` (images reach it). */
  vision?: boolean;
}

/** Options of createTestKernel. */
export interface TestKernelOptions {
  sources?: TestSource[];
  /** Config values set before the first turn (`core.agent.max_tool_turns`, …). */
  config?: Record<string, unknown>;
  clock?: Clock;
  persona?: string;
  /** The agent's working window (default: the Agent's own) and recalled memory. */
  context?: AgentOptions["context"];
  recall?: AgentOptions["recall"];
  /** Where the providers record usage. */
  usage?: UsageLedger;
  /** The media store handed to the Agent. */
  media?: AgentOptions["media"];
}

/** A running test kernel; dispose it to close the agent and the database. */
export interface TestKernel extends AsyncDisposable {
  agent: Agent;
  providers: ProviderManager;
  logger: MemoryLogger;
  config: TestRegistry;
  /** Every event the bus published, in order. */
  events: KernelEvent[];
  /** Inject `text` from source "test" and wait for its one reply. */
  ask(text: string): Promise<Reply>;
  /** Point source `name` at a server (adds it when new). */
  setSource(source: TestSource): void;
}

/** Build a kernel over fake servers. */
export function createTestKernel(options: TestKernelOptions = {}): TestKernel {
  const config = openTestRegistry();
  const logger = new MemoryLogger();
  const clock = options.clock ?? systemClock;
  const registry = config.registry;
  registry.set("core.llm.retry_delay_ms", 0);
  for (const [key, value] of Object.entries(options.config ?? {})) registry.set(key, value);
  const setSource = (source: TestSource) => {
    const prefix = `core.llm.sources.${source.name}`;
    registry.set(`${prefix}.adapter`, source.adapter ?? "openai");
    registry.set(`${prefix}.base_url`, source.server.url);
    registry.set(`${prefix}.model`, "fake-model");
    registry.set(`${prefix}.context_window`, source.contextWindow ?? 32_000);
    if (source.vision !== undefined) registry.set(`${prefix}.vision`, source.vision);
  };
  for (const source of options.sources ?? []) setSource(source);
  const providers = new ProviderManager({
    clock,
    logger,
    sources: () => registry.llmSources(),
    factory: createProviderFactory({ clock, logger }),
    retryDelayMs: 0,
    usage: options.usage,
  });
  // As createKernel composes them: the media tools are a tool source over the agent's outbox.
  const outbox = new MediaOutbox();
  const media = options.media ? mediaTools(options.media, outbox) : [];
  const agent = new Agent({
    clock,
    logger,
    config: registry,
    llm: providers,
    persona: () => options.persona ?? "You are a test agent.",
    context: options.context,
    recall: options.recall,
    media: options.media,
    outbox,
    toolSources: [() => media],
  });
  const events: KernelEvent[] = [];
  agent.events.subscribe("*", (event) => void events.push(event));
  return {
    agent,
    providers,
    logger,
    config,
    events,
    ask: (text) => agent.injectInputSync("test", text),
    setSource,
    async [Symbol.asyncDispose]() {
      await agent.close();
      config[Symbol.dispose]();
    },
  };
}
