/** The Lua adapter VMs' budgets, `core.llm.lua.*` (docs/adapters.md "Budgets"), read at start. */
import { z } from "zod";
import type { ConfigDefinition } from "../../core/mod.ts";
import {
  DEFAULT_INSTRUCTION_LIMIT,
  DEFAULT_MEMORY_LIMIT_BYTES,
  DEFAULT_TIME_LIMIT_MS,
} from "./vm.ts";

const KEYS = {
  instructions: "core.llm.lua.instruction_limit",
  timeMs: "core.llm.lua.time_limit_ms",
  memoryMb: "core.llm.lua.memory_limit_mb",
} as const;

/** The budgets of every adapter VM, as LuaAdapterRuntime takes them. */
export interface LuaAdapterLimits {
  instructionLimit: number;
  timeLimitMs: number;
  memoryLimitBytes: number;
}

/** Define the `core.llm.lua.*` keys. Throws TypeError when called twice. */
export function registerLuaAdapterDefaults(
  config: { define<T>(d: ConfigDefinition<T>): void },
): void {
  config.define({
    key: KEYS.instructions,
    schema: () => z.int().min(1000).max(1e12),
    default: DEFAULT_INSTRUCTION_LIMIT,
    description: "VM instructions one call into a Lua adapter script may run",
  });
  config.define({
    key: KEYS.timeMs,
    schema: () => z.int().min(10).max(600_000),
    default: DEFAULT_TIME_LIMIT_MS,
    description:
      "Milliseconds one call into a Lua adapter script may run (waits on http_get excluded)",
  });
  config.define({
    key: KEYS.memoryMb,
    schema: () => z.int().min(1).max(2048),
    default: DEFAULT_MEMORY_LIMIT_BYTES / (1024 * 1024),
    description: "Megabytes of memory one Lua adapter VM may hold",
  });
}

/** The configured budgets (needs registerLuaAdapterDefaults). */
export function luaAdapterLimits(config: { get<T>(key: string): T }): LuaAdapterLimits {
  return {
    instructionLimit: config.get<number>(KEYS.instructions),
    timeLimitMs: config.get<number>(KEYS.timeMs),
    memoryLimitBytes: config.get<number>(KEYS.memoryMb) * 1024 * 1024,
  };
}
