/**
 * The `cfgmgr` built-in (ARCHITECTURE.md "Configuration System"): the model lists, reads and
 * changes settings through the ConfigRegistry and its validation. Secrets never leave in clear,
 * a refused value is a tool error the model reads, and keys that guard the owner (the web token,
 * sandbox switches, the command policy, where LLM requests go) are refused to the model.
 *
 * It uses only the SDK surface an external plugin gets (tools and its own settings) plus the
 * `ConfigAccess` port, whose calls take and return JSON, so it could run as a subprocess.
 */
import { z } from "zod";
import {
  type ConfigDefinition,
  type ConfigDescription,
  type ConfigEntry,
  errorMessage,
  type Plugin,
  type PluginSDK,
  SECRET_MASK,
  type ToolResult,
} from "../../../core/mod.ts";

/** The ConfigRegistry as cfgmgr uses it; list/describe/definitions mask secrets. Setters throw when refused. */
export interface ConfigAccess {
  list(prefix?: string): ConfigEntry[];
  describe(key: string): ConfigDescription;
  definitions(prefix?: string): ConfigDescription[];
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  /** Parse text per the key's type (number, true/false, JSON or plain text), then set. */
  setFromText(key: string, text: string): void;
  unset(key: string): void;
}

/** Options of createCfgmgrPlugin. */
export interface CfgmgrOptions {
  config: ConfigAccess;
  /** The loaded plugins and their state. */
  plugins(): { name: string; state: string }[];
}

/**
 * Keys the model may never change, whatever `plugin.cfgmgr.protected_keys` says: this list
 * itself, and the policies that make the owner approve commands and terminals (a model that
 * could set them to "allow" would need no approval at all).
 */
const ALWAYS_PROTECTED = ["plugin.cfgmgr.*", "plugin.cmd.policy", "plugin.agentcli.policy"];
const DEFAULT_PROTECTED = [
  "core.web.*",
  "core.plugins.*",
  "core.llm.sources.*.base_url",
  "core.llm.sources.*.adapter",
  "plugin.files.*",
  // The change tracker is the owner's record of what the agent did to files.
  "plugin.changes.*",
  "plugin.cmd.track_changes",
  // MCP servers are programs the daemon starts, with their own secrets; skills' sources.
  "plugin.mcp.*",
  "plugin.clawhubadapter.*",
];
/** Longest listing returned to the model, in lines. */
const MAX_LINES = 200;

/** Define `plugin.cfgmgr.*`. Call once per registry, before the daemon or `config` reads it. */
export function registerCfgmgrSettings(
  config: { define<T>(definition: ConfigDefinition<T>): void },
): void {
  config.define({
    key: "plugin.cfgmgr.protected_keys",
    schema: () => z.array(z.string().min(1).max(200)).max(100),
    default: DEFAULT_PROTECTED,
    description: "Keys the agent may not change through config_set (* matches any text); " +
      "plugin.cfgmgr.* is always protected",
  });
}

/** Create the cfgmgr built-in. */
export function createCfgmgrPlugin(options: CfgmgrOptions): Plugin {
  return {
    name: "cfgmgr",
    start(sdk) {
      for (const tool of cfgmgrTools(sdk, options)) sdk.registerTool(tool);
    },
    stop() {},
  };
}

type Args = Record<string, unknown>;

function cfgmgrTools(sdk: PluginSDK, { config, plugins }: CfgmgrOptions) {
  const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
    type: "object",
    properties,
    required,
    additionalProperties: false,
  });
  const str = (description: string) => ({ type: "string", description });
  const guard = (fn: (args: Args) => string) => (args: Args): string | ToolResult => {
    try {
      return fn(args);
    } catch (error) {
      return { content: errorMessage(error), isError: true };
    }
  };
  const protectedKeys = () => [
    ...ALWAYS_PROTECTED,
    ...sdk.settings.get<string[]>("protected_keys"),
  ];
  const setOne = (key: string, value: unknown) => {
    refuseProtected(key, protectedKeys());
    if (typeof value === "string") config.setFromText(key, value);
    else config.set(key, value);
  };
  const readOnly = { parallelSafe: true, noMemory: true };
  return [
    {
      name: "config_list_plugins",
      description: "List setting namespaces (core, each plugin) with their key counts",
      parameters: obj({}),
      ...readOnly,
      handler: guard(() => listNamespaces(config, plugins())),
    },
    {
      name: "config_list_keys",
      description: "List settings and their values under a key prefix (secrets masked)",
      parameters: obj({ prefix: str("e.g. core.agent or plugin.timer") }),
      ...readOnly,
      handler: guard((args) =>
        lines(
          config.list(String(args.prefix ?? "")).map((e) =>
            `${e.key} = ${JSON.stringify(e.value)}${e.source === "default" ? "" : ` (${e.source})`}`
          ),
        )
      ),
    },
    {
      name: "config_get",
      description: "Read one setting: value (secrets masked), default, source, description",
      parameters: obj({ key: str("Full key") }, ["key"]),
      ...readOnly,
      handler: guard((args) => JSON.stringify(getOne(config, String(args.key)))),
    },
    {
      name: "config_get_defs",
      description: "Describe the settings under a prefix: type, default, description",
      parameters: obj({ prefix: str("Key prefix") }),
      ...readOnly,
      handler: guard((args) =>
        lines(
          config.definitions(String(args.prefix ?? "")).map((d) =>
            `${d.key}: ${d.expected ?? "any JSON"}, default ${JSON.stringify(d.default)}` +
            `${d.secret ? ", secret" : ""}${d.restart ? ", needs restart" : ""} — ${d.description}`
          ),
        )
      ),
    },
    {
      name: "config_set",
      description: "Change one setting (validated; the error says what is expected)",
      parameters: obj({ key: str("Full key"), value: { description: "New value" } }, [
        "key",
        "value",
      ]),
      noMemory: true,
      handler: guard((args) => {
        const key = String(args.key);
        setOne(key, args.value);
        return `Set ${key} = ${JSON.stringify(getOne(config, key).value)}${
          restartNote(config, key)
        }`;
      }),
    },
    {
      name: "config_batch_set",
      description: "Change several settings at once; all or none are applied",
      parameters: obj({
        values: { type: "object", description: "Map of key to new value" },
      }, ["values"]),
      noMemory: true,
      handler: guard((args) => batchSet(config, args.values, setOne)),
    },
  ];
}

/** What config_get reports; a secret's value is masked unless it is empty. */
function getOne(config: ConfigAccess, key: string) {
  const description = config.describe(key);
  const entry = config.list(key).find((e) => e.key === key);
  const raw = entry?.value ?? config.get(key);
  const value = description.secret && raw !== "" ? SECRET_MASK : raw;
  return {
    key,
    value,
    default: description.default,
    source: entry?.source ?? "default",
    description: description.description,
    ...(description.secret ? { secret: true } : {}),
    ...(entry?.problem !== undefined ? { problem: entry.problem } : {}),
  };
}

function restartNote(config: ConfigAccess, key: string): string {
  return config.describe(key).restart ? " (takes effect after a restart)" : "";
}

/** Apply every value or none: on the first refusal, what was already set is put back. */
function batchSet(
  config: ConfigAccess,
  values: unknown,
  setOne: (key: string, value: unknown) => void,
): string {
  if (typeof values !== "object" || values === null || Array.isArray(values)) {
    throw new TypeError("values must be an object of key to value");
  }
  const pairs = Object.entries(values as Args);
  if (pairs.length === 0) throw new RangeError("values is empty");
  if (pairs.length > 50) throw new RangeError(`At most 50 keys at once, not ${pairs.length}`);
  const undo: (() => void)[] = [];
  for (const [key, value] of pairs) {
    try {
      const stored = config.list(key).find((e) => e.key === key)?.source === "stored";
      const before = config.get(key);
      setOne(key, value);
      undo.push(() => stored ? config.set(key, before) : config.unset(key));
    } catch (error) {
      for (const fn of undo.reverse()) fn();
      throw new Error(`Nothing was changed: ${errorMessage(error)}`, { cause: error });
    }
  }
  return `Set ${pairs.map(([key]) => key).join(", ")}`;
}

function refuseProtected(key: string, patterns: string[]): void {
  const hit = patterns.find((p) => globMatch(p, key));
  if (hit) {
    throw new Error(
      `"${key}" is protected (${hit}); only the owner can change it, with ` +
        `"homeagent config set" or the web settings page`,
    );
  }
}

function globMatch(pattern: string, key: string): boolean {
  const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`).test(key);
}

function listNamespaces(config: ConfigAccess, plugins: { name: string; state: string }[]): string {
  const counts = new Map<string, number>();
  for (const d of config.definitions()) {
    const [top, name] = d.key.split(".");
    const ns = top === "plugin" ? `plugin.${name}` : top!;
    counts.set(ns, (counts.get(ns) ?? 0) + 1);
  }
  const rows = [`core: ${counts.get("core") ?? 0} settings`];
  for (const p of [...plugins].sort((a, b) => a.name < b.name ? -1 : 1)) {
    rows.push(`plugin.${p.name} (${p.state}): ${counts.get(`plugin.${p.name}`) ?? 0} settings`);
  }
  return rows.join("\n");
}

function lines(rows: string[]): string {
  if (rows.length === 0) return "No settings match";
  const shown = rows.slice(0, MAX_LINES);
  const cut = rows.length - shown.length;
  return shown.join("\n") + (cut > 0 ? `\n… ${cut} more; narrow the prefix` : "");
}
