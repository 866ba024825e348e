/** The Agent's settings as it reads them from config at every turn. */
import { parseSectionShares } from "../prompt/budget.ts";
import type { TurnSettings } from "./turn.ts";

/** What the Agent reads its settings through (the ConfigRegistry). */
interface Config {
  get<T = unknown>(key: string): T;
}

/** The scheduler's bound and cooldown: the Agent's options, else `core.agent.*`. */
export function schedulerSettings(
  config: Config,
  options: { queueCapacity?: number; preemptCooldownMs?: number },
): { capacity: number; cooldownMs: number } {
  return {
    capacity: options.queueCapacity ?? config.get<number>("core.agent.queue_capacity"),
    cooldownMs: options.preemptCooldownMs ?? config.get<number>("core.agent.preempt_cooldown_ms"),
  };
}

/** A turn's settings: `core.agent.*` and the prompt's section shares (`core.prompt.shares`). */
export function turnSettings(config: Config): TurnSettings {
  return {
    maxToolTurns: config.get<number>("core.agent.max_tool_turns"),
    toolTimeoutMs: config.get<number>("core.agent.tool_timeout_ms"),
    stream: config.get<boolean>("core.agent.stream"),
    shares: parseSectionShares(config.get<string>("core.prompt.shares")),
  };
}
