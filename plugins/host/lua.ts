/**
 * Lua plugins: `main.lua` returns `{ start = function(sdk) … end, stop = function() … end }`
 * and runs in wasmoon (Lua 5.4 in wasm). Every call into Lua runs under an instruction and a
 * time budget, so a looping plugin fails its call instead of taking the kernel down. HTTP is
 * limited to the hosts the manifest declares under permissions.net.
 */
import { LuaFactory } from "wasmoon";
import type { LuaEngine } from "wasmoon";
import {
  errorMessage,
  type Plugin,
  PluginError,
  type PluginSDK,
  type StageName,
} from "../../core/mod.ts";
import { createRestrictedApi, type PluginServices, requireCapability } from "./api.ts";
import type { Manifest } from "./manifest.ts";
import { applyMutation, stageToWire } from "./stage_wire.ts";
import prelude from "./lua_prelude.lua" with { type: "text" };

/** Default budget of one call into Lua. */
export const LUA_INSTRUCTION_LIMIT = 10_000_000;
/** Default wall-time budget of one call into Lua, ms (awaited host calls count). */
export const LUA_TIME_LIMIT_MS = 5_000;

/** Options of a Lua plugin. */
export interface LuaPluginOptions {
  manifest: Manifest;
  /** Text of main.lua. */
  source: string;
  services?: PluginServices;
  instructionLimit?: number;
  timeLimitMs?: number;
  /** HTTP for `sdk.http` (tests inject one); default fetch. */
  fetch?: typeof fetch;
}

let factory: LuaFactory | undefined;

type Invoke = (id: number, arg?: unknown) => Promise<unknown>;

/** Create the Plugin for a Lua entry. */
export function createLuaPlugin(options: LuaPluginOptions): Plugin {
  const name = options.manifest.name;
  let engine: LuaEngine | undefined;
  let invokeFn: ((fn: string, ...args: unknown[]) => Promise<unknown>) | undefined;
  return {
    name,
    async start(sdk) {
      factory ??= new LuaFactory();
      const lua = await factory.createEngine({
        openStandardLibs: true,
        injectObjects: false,
        enableProxy: false,
      });
      engine = lua;
      const run = serialised(lua);
      invokeFn = run;
      const invoke: Invoke = async (id, arg) => await call(run, name, "__invoke", id, arg);
      lua.global.set("__host", hostTable(sdk, options, invoke));
      lua.global.set("__instruction_limit", options.instructionLimit ?? LUA_INSTRUCTION_LIMIT);
      lua.global.set("__time_limit_s", (options.timeLimitMs ?? LUA_TIME_LIMIT_MS) / 1000);
      try {
        await lua.doString(prelude);
        await call(run, name, "__load_main", options.source);
        await call(run, name, "__start");
      } catch (error) {
        lua.global.close();
        engine = undefined;
        throw error;
      }
    },
    async stop() {
      const lua = engine;
      engine = undefined;
      if (!lua || !invokeFn) return;
      try {
        await call(invokeFn, name, "__stop");
      } finally {
        lua.global.close();
      }
    },
  };
}

/** Run Lua functions one at a time, each on its own coroutine so host promises can be awaited. */
function serialised(lua: LuaEngine) {
  let queue: Promise<unknown> = Promise.resolve();
  return (fn: string, ...args: unknown[]): Promise<unknown> => {
    const next = queue.then(async () => {
      const global = lua.global;
      const thread = global.newThread();
      const index = global.getTop();
      try {
        thread.loadString(`return ${fn}(...)`);
        for (const arg of args) thread.pushValue(arg);
        const result = await thread.run(args.length);
        return [...result];
      } finally {
        global.remove(index);
      }
    });
    queue = next.catch(() => {});
    return next;
  };
}

async function call(
  run: (fn: string, ...args: unknown[]) => Promise<unknown>,
  plugin: string,
  fn: string,
  ...args: unknown[]
): Promise<unknown> {
  let out: unknown[];
  try {
    out = await run(fn, ...args) as unknown[];
  } catch (error) {
    throw new PluginError(plugin, `Lua plugin "${plugin}" failed: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (out[0] !== true) {
    throw new PluginError(plugin, `Lua plugin "${plugin}" failed in ${fn}: ${String(out[1])}`);
  }
  return out[1];
}

function hostTable(sdk: PluginSDK, options: LuaPluginOptions, invoke: Invoke) {
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
  const safe = (p: Promise<unknown>) =>
    p.then((v) => v ?? null, (error) => ({ __error: errorMessage(error) }));
  return {
    register_tool: (def: Record<string, unknown>, id: number) => {
      requireCapability(sdk.pluginName, caps, "tools", "register_tool");
      sdk.registerTool({
        name: String(def.name),
        description: String(def.description ?? ""),
        parameters: toSchema(def.parameters),
        timeoutMs: manifest.timeout_ms,
        handler: async (args) => {
          const out = await invoke(id, args);
          return typeof out === "string" ? out : JSON.stringify(out ?? null);
        },
      });
    },
    register_stage: (stage: string, id: number, scope?: string) => {
      requireCapability(sdk.pluginName, caps, "stages", "register_stage");
      sdk.registerStage(stage as StageName, async (context) => {
        applyMutation(context, await invoke(id, stageToWire(context)));
      }, scope === "own_tools" ? "own_tools" : "global");
    },
    register_output_channel: (
      name: string,
      caps_: number,
      description: string,
      id: number,
      help?: string,
    ) => {
      requireCapability(sdk.pluginName, caps, "channels", "register_output_channel");
      sdk.registerOutputChannel(name, caps_, description, async (m) => {
        await invoke(id, m);
      }, help);
      channels.add(name);
    },
    call: (method: string, params: unknown) => safe(api(method, params)),
    http: (method: string, url: string, body: string, headers: Record<string, string>) =>
      safe(http(options, method, url, body, headers)),
    json_encode: (value: unknown) => JSON.stringify(value ?? null),
    json_decode: (text: string) => JSON.parse(text),
    log: (level: string, message: string) => {
      const fn = level === "debug" || level === "warn" || level === "error" ? level : "info";
      sdk.logger[fn](message, { stream: "lua" });
    },
  };
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
  return { status: response.status, body: await response.text() };
}
