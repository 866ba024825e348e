/** A real Agent over one LLM source at `url`, quiet and on the system clock, for benchmarks. */
import { Agent, type ContextWindow, ProviderManager, silentLogger } from "../../core/mod.ts";
import { createProviderFactory, systemClock } from "../../adapters/mod.ts";
import { openTestRegistry } from "../fakes/config.ts";

/** The agent and a dispose that closes its config database. */
export function benchAgent(
  url: string,
  options: { context?: ContextWindow } = {},
): { agent: Agent } & Disposable {
  const config = openTestRegistry();
  const registry = config.registry;
  registry.set("core.llm.sources.bench.base_url", url);
  registry.set("core.llm.sources.bench.model", "bench");
  registry.set("core.llm.sources.bench.context_window", 128_000);
  const agent = new Agent({
    clock: systemClock,
    logger: silentLogger,
    config: registry,
    llm: new ProviderManager({
      clock: systemClock,
      logger: silentLogger,
      sources: () => registry.llmSources(),
      factory: createProviderFactory({ clock: systemClock, logger: silentLogger }),
    }),
    persona: () => "You are a benchmark.",
    context: options.context,
  });
  return { agent, [Symbol.dispose]: () => config[Symbol.dispose]() };
}
