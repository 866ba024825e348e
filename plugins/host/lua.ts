/**
 * Lua plugins: `main.lua` returns `{ start = function(sdk) … end, stop = function() … end }`.
 * Each runs in wasmoon (Lua 5.4 in wasm) in a worker of its own (lua_channel.ts), outside the
 * kernel's event loop, under the VM's budget (core/lua/budget.ts): instructions, execution time
 * and memory per call, for every coroutine and library function. A script that runs past one is
 * stopped with an error naming the budget, its limit and the script line; one the budget cannot
 * stop is ended by the watchdog, and its plugin counted as crashed. HTTP is limited to the hosts
 * the manifest declares under permissions.net.
 */
import { z } from "zod";
import {
  type Clock,
  errorMessage,
  type Plugin,
  PluginError,
  type PluginSDK,
  readBounded,
  type StageName,
} from "../../core/mod.ts";
import { createRestrictedApi, type PluginServices, requireCapability } from "./api.ts";
import { LuaChannel } from "./lua_channel.ts";
import type { Manifest } from "./manifest.ts";
import { applyMutation, stageToWire } from "./stage_wire.ts";

/** Default budget of one call into Lua: VM instructions. */
export const LUA_INSTRUCTION_LIMIT = 10_000_000;
/** Default execution time of one call into Lua, ms (waits on the host do not count). */
export const LUA_TIME_LIMIT_MS = 5_000;
/** Default memory one Lua plugin's VM may hold, bytes. */
export const LUA_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
/** Wall cap of one call into Lua, its waits on the host included, ms. */
export const LUA_WALL_MS = 60_000;

/** Options of a Lua plugin. */
export interface LuaPluginOptions {
  manifest: Manifest;
  /** Text of main.lua. */
  source: string;
  clock: Clock;
  services?: PluginServices;
  instructionLimit?: number;
  timeLimitMs?: number;
  memoryLimitBytes?: number;
  /** HTTP for `sdk.http` (tests inject one); default fetch. */
  fetch?: typeof fetch;
  /** The worker died after start (budget watchdog, memory, crash): the registry restarts it. */
  onCrash?: (reason: string) => void;
  /** wasmoon's glue.wasm (a bundle writes its own copy out); default the package's file. */
  wasmPath?: string;
}

/** A Lua plugin, with what its VM holds. */
export interface LuaPlugin extends Plugin {
  /** Bytes the VM held after its last call; undefined while it is not running. */
  memoryBytes(): number | undefined;
}

/** Create the Plugin for a Lua entry. */
export function createLuaPlugin(options: LuaPluginOptions): LuaPlugin {
  const name = options.manifest.name;
  let channel: LuaChannel | undefined;
  let started = false;
  return {
    name,
    memoryBytes: () => channel?.memoryBytes,
    async start(sdk) {
      started = false;
      const requests = requestHandler(sdk, options, (entry, args, label) => {
        if (!channel) {
          return Promise.reject(new PluginError(name, `Lua plugin "${name}" is not running`));
        }
        return channel.call(entry, args, label);
      });
      // Set once open resolves: a worker that dies while starting has no channel to clear yet.
      let opened: LuaChannel | undefined = undefined;
      const open = await LuaChannel.open({
        plugin: name,
        clock: options.clock,
        limits: {
          instructions: options.instructionLimit ?? LUA_INSTRUCTION_LIMIT,
          timeMs: options.timeLimitMs ?? LUA_TIME_LIMIT_MS,
          memoryBytes: options.memoryLimitBytes ?? LUA_MEMORY_LIMIT_BYTES,
        },
        wallMs: LUA_WALL_MS,
        wasmPath: options.wasmPath,
        onRequest: requests,
        onLog: (level, message) => {
          const fn = level === "debug" || level === "warn" || level === "error" ? level : "info";
          sdk.logger[fn](message, { stream: "lua" });
        },
        onDeath: (reason) => {
          if (opened !== undefined && channel === opened) channel = undefined;
          if (started) options.onCrash?.(`Lua plugin "${name}" ${reason}`);
        },
      });
      opened = open;
      channel = open;
      try {
        await open.call("load", [options.source], "main.lua");
        await open.call("start", [], "start()");
        started = true;
      } catch (error) {
        open.close();
        channel = undefined;
        throw error;
      }
    },
    async stop() {
      const current = channel;
      channel = undefined;
      started = false;
      if (!current) return;
      try {
        // A call still running (a start that timed out, a hung stage) is not waited for.
        if (!current.busy) await current.call("stop", [], "stop()");
      } finally {
        current.close();
      }
    },
  };
}

type Invoke = (entry: "invoke", args: unknown[], label: string) => Promise<unknown>;

const Id = z.lazy(() => z.number().int().min(1));
const Requests = {
  "register_tool": z.object({ def: z.record(z.string(), z.unknown()), id: Id }),
  "register_stage": z.object({ stage: z.string(), id: Id, scope: z.string().optional() }),
  "register_output_channel": z.object({
    name: z.string(),
    caps: z.number().int(),
    description: z.string().default(""),
    id: Id,
    help: z.string().optional(),
  }),
  api: z.object({ method: z.string(), params: z.unknown() }),
  http: z.object({
    method: z.enum(["GET", "POST"]),
    url: z.string(),
    body: z.string().default(""),
    headers: z.record(z.string(), z.string()).default({}),
  }),
};

/** Answers the script's requests: registrations, the restricted API and HTTP. */
function requestHandler(sdk: PluginSDK, options: LuaPluginOptions, invoke: Invoke) {
  const { manifest } = options;
  const caps = manifest.capabilities;
  const channels = new Set<string>();
  const api = createRestrictedApi({
    sdk,
    capabilities: caps,
    services: options.services,
    channels,
    settingKeys: () => Object.keys(manifest.settings),
  });
  return async (method: string, raw: unknown): Promise<unknown> => {
    switch (method) {
      case "register_tool": {
        const { def, id } = parse(method, Requests["register_tool"], raw);
        requireCapability(sdk.pluginName, caps, "tools", "register_tool");
        const name = String(def.name);
        sdk.registerTool({
          name,
          description: String(def.description ?? ""),
          parameters: toSchema(def.parameters),
          timeoutMs: manifest.timeout_ms,
          always: def.always === true,
          handler: async (args) => {
            const out = await invoke("invoke", [id, args], `tool "${name}"`);
            return typeof out === "string" ? out : JSON.stringify(out ?? null);
          },
        });
        return null;
      }
      case "register_stage": {
        const { stage, id, scope } = parse(method, Requests["register_stage"], raw);
        requireCapability(sdk.pluginName, caps, "stages", "register_stage");
        sdk.registerStage(stage as StageName, async (context) => {
          applyMutation(
            context,
            await invoke("invoke", [id, stageToWire(context)], `stage "${stage}"`),
          );
        }, scope === "own_tools" ? "own_tools" : "global");
        return null;
      }
      case "register_output_channel": {
        const c = parse(method, Requests["register_output_channel"], raw);
        requireCapability(sdk.pluginName, caps, "channels", "register_output_channel");
        sdk.registerOutputChannel(c.name, c.caps, c.description, async (m) => {
          await invoke("invoke", [c.id, m], `channel "${c.name}"`);
        }, c.help);
        channels.add(c.name);
        return null;
      }
      case "api": {
        const { method: apiMethod, params } = parse(method, Requests.api, raw);
        return await api(apiMethod, params ?? {});
      }
      case "http": {
        const r = parse(method, Requests.http, raw);
        return await http(options, r.method, r.url, r.body, r.headers);
      }
      default:
        throw new PluginError(sdk.pluginName, `Unknown request "${method}" from a Lua plugin`);
    }
  };
}

function parse<T>(method: string, schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new TypeError(`Invalid ${method} arguments: ${errorMessage(parsed.error)}`);
  }
  return parsed.data;
}

/** Lua tables arrive as JS objects; an empty `properties` or `required` may arrive as []. */
function toSchema(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null) return { type: "object" };
  const schema = { ...(value as Record<string, unknown>) };
  if (Array.isArray(schema.properties)) schema.properties = {};
  return schema;
}

async function http(
  options: LuaPluginOptions,
  method: string,
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<unknown> {
  const name = options.manifest.name;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new PluginError(name, `Invalid URL "${url}"`);
  }
  const allowed = options.manifest.permissions.net;
  if (!allowed.includes(target.hostname) && !allowed.includes(target.host)) {
    throw new PluginError(
      name,
      `Plugin "${name}" may not reach "${target.host}": not in permissions.net`,
    );
  }
  const response = await (options.fetch ?? fetch)(target, {
    method,
    headers,
    body: method === "POST" ? body : undefined,
    signal: AbortSignal.timeout(options.timeLimitMs ?? LUA_TIME_LIMIT_MS),
  });
  const answer = await readBounded(response.body, LUA_HTTP_MAX_BYTES);
  if (answer.over) {
    throw new PluginError(
      name,
      `The answer from "${target.host}" is larger than ${LUA_HTTP_MAX_BYTES} bytes, the most sdk.http takes`,
    );
  }
  return { status: response.status, body: answer.text };
}

/** Most bytes of one `sdk.http` answer: the VM's memory limit is 64 MB by default. */
export const LUA_HTTP_MAX_BYTES = 16 * 1024 * 1024;
