/**
 * One sandboxed Lua VM running one adapter script (wasmoon, Lua 5.4 in wasm), in its own wasm
 * instance so that closing it gives its memory back. Only strings and scalars cross the
 * boundary; JSON work happens in Lua (json.lua), which is what keeps a call cheap (RECIPES.md
 * §4). Every entry into Lua goes through the C API under the VM's budget (core/lua/budget.ts:
 * instructions, execution time, memory): arguments are pushed before the budget is armed and
 * results read after, so a call stopped by its budget can never take the host down with it.
 */
import type { LuaFactory, LuaThread } from "wasmoon";
import {
  describeBreach,
  HomeAgentError,
  type Logger,
  type LuaBreach,
  LuaBudget,
  type LuaCall,
  resumeUnderBudget,
} from "../../core/mod.ts";
import { type Arg, pushArg, type RawLua, topString } from "./_c_api.ts";
import jsonLua from "./json.lua" with { type: "text" };
import preludeLua from "./prelude.lua" with { type: "text" };

/** Default budget of one call: VM instructions. */
export const DEFAULT_INSTRUCTION_LIMIT = 5_000_000;
/** Default execution time of one call, ms. */
export const DEFAULT_TIME_LIMIT_MS = 1000;
/** Default memory one adapter VM may hold, bytes. */
export const DEFAULT_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
/** Wall cap of the calls that may wait on http_get/http_post (their waits included), ms. */
const ASYNC_WALL_MS = 60_000;

/** A script failed: `adapter`, the Lua function, the script line and any budget it ran out of. */
export class LuaScriptError extends HomeAgentError {
  readonly adapter: string;
  readonly fn: string;
  readonly line?: number;
  readonly breach?: LuaBreach;
  constructor(
    adapter: string,
    fn: string,
    detail: string,
    options?: { cause?: unknown; breach?: LuaBreach },
  ) {
    const line = /:(\d+)(?::|$)/.exec(options?.breach?.where ?? detail)?.[1];
    super(
      options?.breach ? "lua_limit" : "lua_error",
      `Lua adapter "${adapter}" failed in ${fn}: ${detail}`,
      options,
    );
    this.adapter = adapter;
    this.fn = fn;
    if (line !== undefined) this.line = Number(line);
    if (options?.breach) this.breach = options.breach;
  }
}

/** The host side of http_get/http_post: resolves to JSON text `{status, body, headers}` or `{error}`. */
export type LuaHttpHost = (
  method: "get" | "post",
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
) => Promise<string>;

/** Options of createLuaVm. */
export interface LuaVmOptions {
  /** Default: a new factory, so the VM has a wasm memory of its own. */
  factory?: LuaFactory;
  /** wasmoon's glue.wasm (for single-file bundles, RECIPES.md §11); default the package's. */
  wasmPath?: string;
  logger: Logger;
  /** Backs http_get/http_post; without it they fail with a clear message. */
  http?: LuaHttpHost;
  instructionLimit?: number;
  timeLimitMs?: number;
  memoryLimitBytes?: number;
  /** Monotonic milliseconds; default performance.now. */
  now?: () => number;
}

/** What the script defines. */
export interface LuaExports {
  name?: string;
  streamFormat?: string;
  endpoint: boolean;
  headers: boolean;
  transformRequest: boolean;
  transformResponse: boolean;
  transformStreamChunk: boolean;
}

type Engine = Awaited<ReturnType<LuaFactory["createEngine"]>>;

const FAILED = "\u0001error";
const LUA_TNIL = 0;
const LUA_TSTRING = 4;
const LUA_REGISTRYINDEX = -1_001_000;
const ENTRIES = [
  "__load",
  "__invoke",
  "__endpoint",
  "__headers",
  "__chunk",
  "__chunks",
  "__end_stream",
  "__last_error",
  "__exports",
] as const;
type Entry = typeof ENTRIES[number];

/** A loaded adapter VM. Methods throw LuaScriptError; they never crash the caller otherwise. */
export class LuaVm {
  readonly adapter: string;
  #exports: LuaExports = {
    endpoint: false,
    headers: false,
    transformRequest: false,
    transformResponse: false,
    transformStreamChunk: false,
  };
  #engine: Engine;
  #raw: RawLua;
  #budget: LuaBudget;
  #refs = new Map<Entry, bigint>();
  #lengthSlot: number;
  #closed = false;
  #spoiled = false;

  /** Use createLuaVm. */
  constructor(adapter: string, engine: Engine, budget: LuaBudget) {
    this.adapter = adapter;
    this.#engine = engine;
    this.#raw = engine.global.lua.module as unknown as RawLua;
    this.#budget = budget;
    this.#lengthSlot = this.#raw._malloc(4);
    const { lua: api, address: L } = engine.global;
    for (const name of ENTRIES) {
      api.lua_getglobal(L, name);
      this.#refs.set(name, BigInt(api.luaL_ref(L, LUA_REGISTRYINDEX)));
    }
  }

  /** What the script defines (after load). */
  get exports(): LuaExports {
    return this.#exports;
  }

  /**
   * Whether the VM ran out of memory once: its wasm memory stays grown, so the runtime retires
   * it and builds a fresh one for the next request.
   */
  get spoiled(): boolean {
    return this.#spoiled;
  }

  /** Bytes the VM's Lua heap holds now. */
  get memoryUsed(): number {
    return this.#budget.memoryUsed;
  }

  /** Bytes of the VM's wasm memory (what the process holds for it). */
  get wasmBytes(): number {
    return this.#closed ? 0 : this.#engine.global.lua.module.HEAPU8.byteLength;
  }

  /** Run the script's top level and read what it defines. Throws LuaScriptError. */
  load(script: string, chunkname: string): void {
    if (this.#sync("__load", "load", [script, chunkname]) === FAILED) throw this.#failure("load");
    const raw = JSON.parse(this.#text("__exports", "load", [])) as Record<string, unknown>;
    this.#exports = {
      ...(typeof raw.name === "string" ? { name: raw.name } : {}),
      ...(typeof raw.stream_format === "string" ? { streamFormat: raw.stream_format } : {}),
      endpoint: raw.endpoint === true,
      headers: raw.headers === true,
      transformRequest: raw.transform_request === true,
      transformResponse: raw.transform_response === true,
      transformStreamChunk: raw.transform_stream_chunk === true,
    };
  }

  /** `endpoint(config, stream)`: the path appended to the base URL. */
  endpoint(configJson: string, stream: boolean): string {
    return this.#text("__endpoint", "endpoint", [configJson, stream]);
  }

  /** `headers(config)` as a header map; may wait on http_get/http_post. */
  async headers(configJson: string): Promise<Record<string, string>> {
    const text = await this.#async("__headers", "headers", [configJson]);
    const parsed: unknown = JSON.parse(text);
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      out[key] = String(value);
    }
    return out;
  }

  /** `transform_request(json)`; may wait on http_get/http_post. */
  async transformRequest(json: string): Promise<string> {
    return await this.#async("__invoke", "transform_request", ["transform_request", json]);
  }

  /** `transform_response(json)`. */
  transformResponse(json: string): string {
    return this.#text("__invoke", "transform_response", ["transform_response", json]);
  }

  /** `transform_stream_chunk(line, state)` for stream `id`; undefined when the script skips it. */
  streamChunk(id: number, line: string): string | undefined {
    const result = this.#sync("__chunk", "transform_stream_chunk", [id, line]);
    if (result === FAILED) throw this.#failure("transform_stream_chunk");
    return result;
  }

  /**
   * `transform_stream_chunk` over every line of one network read in a single call into Lua:
   * one result per line, undefined where the script skipped it.
   */
  streamChunks(id: number, lines: readonly string[]): (string | undefined)[] {
    if (lines.length === 0) return [];
    // NUL separates the lines: no SSE data or NDJSON line carries one, and the bytes cross
    // with their length (lua_pushstring and UTF8ToString would stop at the first).
    const result = this.#text("__chunks", "transform_stream_chunk", [id, lines.join("\0")]);
    return result.split("\0").map((r: string) => r === "\u0002" ? undefined : r);
  }

  /** Drop the per-stream state of `id`. */
  endStream(id: number): void {
    if (!this.#closed) this.#sync("__end_stream", "end_stream", [id]);
  }

  /** Free the VM (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#raw._free(this.#lengthSlot);
    this.#engine.global.close();
    this.#budget.dispose();
  }

  #text(entry: Entry, fn: string, args: Arg[]): string {
    const result = this.#sync(entry, fn, args);
    if (result === FAILED) throw this.#failure(fn);
    if (result === undefined) throw this.#error(fn, "returned nil, expected a string");
    return result;
  }

  /** Call entry function `entry` on the main thread; its string result, or undefined for nil. */
  #sync(entry: Entry, fn: string, args: Arg[]): string | undefined {
    if (this.#closed) throw this.#error(fn, "the VM is closed");
    const raw = this.#raw;
    const L = this.#engine.global.address;
    const top = raw._lua_gettop(L);
    try {
      raw._lua_rawgeti(L, LUA_REGISTRYINDEX, this.#refs.get(entry)!);
      for (const arg of args) pushArg(raw, L, arg);
      const budget = this.#budget;
      const call = budget.begin();
      const outer = budget.enter(call);
      let status: number;
      try {
        status = raw._lua_pcallk(L, args.length, 1, 0, 0, 0);
      } finally {
        budget.leave(call, outer);
      }
      return this.#result(fn, call, status, L);
    } finally {
      raw._lua_settop(L, top);
    }
  }

  /** Call `entry` on a thread of its own, so that it may wait on the host (http_*). */
  async #async(entry: Entry, fn: string, args: Arg[]): Promise<string> {
    if (this.#closed) throw this.#error(fn, "the VM is closed");
    const global = this.#engine.global;
    const thread: LuaThread = global.newThread();
    const index = global.getTop();
    try {
      const T = thread.address;
      global.lua.lua_rawgeti(T, LUA_REGISTRYINDEX, this.#refs.get(entry)!);
      for (const arg of args) pushArg(this.#raw, T, arg);
      const call = this.#budget.begin({ thread: T, wallMs: ASYNC_WALL_MS });
      const end = await resumeUnderBudget(this.#budget, call, thread, args.length);
      if (end.status === 0 && end.results === 0) throw this.#error(fn, "returned nothing");
      const result = this.#result(fn, call, end.status, T);
      if (result === FAILED) throw this.#failure(fn);
      if (result === undefined) throw this.#error(fn, "returned nil, expected a string");
      return result;
    } finally {
      global.remove(index);
    }
  }

  /** The string at the top of L after a call, or the error the call ended with. */
  #result(fn: string, call: LuaCall, status: number, L: number): string | undefined {
    const breach = this.#budget.breachOf(call);
    if (breach) {
      if (breach.kind === "memory") this.#spoiled = true;
      throw new LuaScriptError(this.adapter, fn, describeBreach(breach), { breach });
    }
    if (status !== 0) {
      throw this.#error(fn, topString(this.#raw, L, this.#lengthSlot) || `Lua status ${status}`);
    }
    const type = this.#raw._lua_type(L, -1);
    if (type === LUA_TNIL) return undefined;
    if (type !== LUA_TSTRING) throw this.#error(fn, "returned a non-string");
    return topString(this.#raw, L, this.#lengthSlot);
  }

  #failure(fn: string): LuaScriptError {
    const message = this.#sync("__last_error", "last_error", []);
    return this.#error(fn, message ?? "unknown error");
  }

  #error(fn: string, detail: string): LuaScriptError {
    return new LuaScriptError(this.adapter, fn, detail);
  }
}

/**
 * Create a VM, put it under its budget, mount json and the host functions, sandbox it and load
 * `script` (named `chunkname` in error lines). Throws LuaScriptError when the script does not load.
 */
export async function createLuaVm(
  adapter: string,
  script: string,
  chunkname: string,
  options: LuaVmOptions,
): Promise<LuaVm> {
  // wasmoon's glue (~7 MB once imported) loads with the first Lua VM: only Lua sources need it.
  const factory = options.factory ?? new (await import("wasmoon")).LuaFactory(options.wasmPath);
  const engine = await factory.createEngine({
    openStandardLibs: true,
    injectObjects: false,
    enableProxy: false,
  });
  let budget: LuaBudget | undefined;
  try {
    budget = LuaBudget.install(engine, {
      limits: {
        instructions: options.instructionLimit ?? DEFAULT_INSTRUCTION_LIMIT,
        timeMs: options.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS,
        memoryBytes: options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES,
      },
      now: options.now ?? (() => performance.now()),
      internal: ["prelude", "json.lua"],
    });
    const log = options.logger.child({ adapter });
    const global = engine.global;
    global.set("__json_src", jsonLua);
    global.set("__host_log", (level: string, message: string) => logAt(log, level, message));
    global.set("__host_http", hostHttp(options.http));
    global.loadString(preludeLua, "=prelude");
    const status = budget.run(
      budget.begin(),
      () => global.lua.lua_pcallk(global.address, 0, 0, 0, 0, null),
    );
    if (status !== 0) throw new Error(`The adapter prelude failed to load (Lua status ${status})`);
    const vm = new LuaVm(adapter, engine, budget);
    try {
      vm.load(script, chunkname);
    } catch (error) {
      vm.close();
      throw error;
    }
    return vm;
  } catch (error) {
    if (!(error instanceof LuaScriptError)) {
      engine.global.close();
      budget?.dispose();
    }
    throw error;
  }
}

function logAt(logger: Logger, level: string, message: string): void {
  const fn = level === "debug" || level === "warn" || level === "error" ? level : "info";
  logger[fn](message);
}

function hostHttp(http: LuaHttpHost | undefined) {
  return (method: string, url: string, body: string, headers: string, timeoutMs: number) => {
    if (!http) return Promise.resolve(JSON.stringify({ error: "no HTTP host is available" }));
    let parsed: Record<string, string> = {};
    try {
      parsed = JSON.parse(headers) as Record<string, string>;
    } catch {
      // headers were encoded by json.lua; a failure here leaves them empty
    }
    return http(method === "post" ? "post" : "get", url, body, parsed, Number(timeoutMs) || 0);
  };
}
