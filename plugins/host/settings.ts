/** Plugin settings (`plugin.<name>.<key>`) and the host's own keys, in the ConfigRegistry. */
import { z } from "zod";
import type { ConfigDefinition } from "../../core/mod.ts";

/** The part of the ConfigRegistry the plugin host uses. */
export interface HostConfig {
  define<T>(definition: ConfigDefinition<T>): void;
  isDefined?(key: string): boolean;
  /** Every setting under `prefix` (secrets masked), for `plugin list`. */
  list?(prefix: string): { key: string; value: unknown }[];
  get<T = unknown>(key: string): T;
  set(key: string, value: unknown): void;
}

/** Declares plugin settings from manifests and `settings.define`. */
export interface SettingsDefiner {
  /** Define `plugin.<plugin>.<key>`; a repeat with the same type is a no-op. Throws TypeError when invalid. */
  define(plugin: string, key: string, definition: unknown): void;
}

const Definition = z.lazy(() =>
  z.object({
    type: z.enum(["string", "number", "boolean", "json"]),
    default: z.unknown(),
    description: z.string().max(500).optional(),
    secret: z.boolean().optional(),
  })
);

const SCHEMAS = {
  string: z.string(),
  number: z.number(),
  boolean: z.boolean(),
  json: z.unknown(),
} as const;

/** The host's keys besides `core.plugins.<name>.enabled`, read each time a plugin starts. */
export const PLUGIN_HOST_KEYS = {
  startTimeoutMs: "core.plugins.start_timeout_ms",
  luaInstructionLimit: "core.plugins.lua.instruction_limit",
  luaTimeLimitMs: "core.plugins.lua.time_limit_ms",
  luaMemoryLimitMb: "core.plugins.lua.memory_limit_mb",
} as const;

/**
 * Define the host's keys: `core.plugins.<name>.enabled`, `core.plugins.allow_native` and
 * PLUGIN_HOST_KEYS. Call once per registry.
 */
export function registerPluginDefaults(config: HostConfig): void {
  config.define({
    key: "core.plugins.*.enabled",
    schema: () => z.boolean(),
    default: true,
    description: "Whether the installed plugin is started (homeagent plugin enable/disable NAME)",
  });
  config.define({
    key: "core.plugins.npm_registry",
    schema: () => z.string().url(),
    default: "https://registry.npmjs.org",
    description: "The npm registry `plugin install npm:<package>` fetches skill packages from",
  });
  config.define({
    key: "core.plugins.allow_native",
    schema: () => z.boolean(),
    default: false,
    description: "Allow plugins that run native programs outside the Deno sandbox (a native " +
      "entry, or permissions.run); each such start is logged as a warning (docs/security.md)",
  });
  config.define({
    key: PLUGIN_HOST_KEYS.startTimeoutMs,
    schema: () => z.int().min(100).max(600_000),
    default: 30_000,
    description: "Milliseconds a plugin's start may take before it is stopped and marked failed",
  });
  config.define({
    key: PLUGIN_HOST_KEYS.luaInstructionLimit,
    schema: () => z.int().min(1000).max(1e12),
    default: 10_000_000,
    description: "VM instructions one call into a Lua plugin may run",
  });
  config.define({
    key: PLUGIN_HOST_KEYS.luaTimeLimitMs,
    schema: () => z.int().min(10).max(600_000),
    default: 5_000,
    description: "Milliseconds one call into a Lua plugin may run (its waits on the host excluded)",
  });
  config.define({
    key: PLUGIN_HOST_KEYS.luaMemoryLimitMb,
    schema: () => z.int().min(1).max(2048),
    default: 64,
    description: "Megabytes of memory one Lua plugin's VM may hold",
  });
}

/** A SettingsDefiner over `config`. */
export function createSettingsDefiner(config: HostConfig): SettingsDefiner {
  const defined = new Map<string, string>();
  return {
    define(plugin, key, raw) {
      const parsed = Definition.safeParse(raw);
      if (!parsed.success) {
        throw new TypeError(`Invalid definition of setting "${key}": ${parsed.error.message}`);
      }
      const full = `plugin.${plugin}.${key}`;
      const type = parsed.data.type;
      const known = defined.get(full);
      if (known === type) return; // reload or restart: already defined
      if (known !== undefined) {
        throw new TypeError(`Setting "${full}" is already defined as ${known}`);
      }
      config.define({
        key: full,
        schema: SCHEMAS[type] as z.ZodType<unknown>,
        default: parsed.data.default ?? defaultOf(type),
        description: parsed.data.description ?? `Setting of plugin "${plugin}"`,
        secret: parsed.data.secret,
      });
      defined.set(full, type);
    },
  };
}

function defaultOf(type: keyof typeof SCHEMAS): unknown {
  return type === "string" ? "" : type === "number" ? 0 : type === "boolean" ? false : null;
}
