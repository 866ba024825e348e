/**
 * One sandboxed Lua VM running one adapter script (wasmoon, Lua 5.4 in wasm). Only strings
 * and scalars cross the boundary; JSON work happens in Lua (json.lua), which is what keeps
 * a call cheap (RECIPES.md §4). Every call runs under an instruction and time budget.
 */
import type { LuaEngine, LuaFactory } from "wasmoon";
import { HomeAgentError, type Logger } from "../../core/mod.ts";
import jsonLua from "./json.lua" with { type: "text" };
import preludeLua from "./prelude.lua" with { type: "text" };

/** Default budget of one call: instructions, and CPU seconds as Lua's os.clock counts them. */
export const DEFAULT_INSTRUCTION_LIMIT = 5_000_000;
/** Default time budget of one call in milliseconds. */
export const DEFAULT_TIME_LIMIT_MS = 1000;

/** A script failed: `adapter`, the Lua function and, when Lua reported one, the script line. */
export class LuaScriptError extends HomeAgentError {
  readonly adapter: string;
  readonly fn: string;
  readonly line?: number;
  constructor(adapter: string, fn: string, detail: string, options?: { cause?: unknown }) {
    const line = /:(\d+):/.exec(detail)?.[1];
    const limit = detail.startsWith("limit: ");
    super(
      limit ? "lua_limit" : "lua_error",
      `Lua adapter "${adapter}" failed in ${fn}: ${limit ? detail.slice(7) : detail}`,
      options,
    );
    this.adapter = adapter;
    this.fn = fn;
    if (line !== undefined) this.line = Number(line);
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
  factory: LuaFactory;
  logger: Logger;
  /** Backs http_get/http_post; without it they fail with a clear message. */
  http?: LuaHttpHost;
  instructionLimit?: number;
  timeLimitMs?: number;
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

type LuaFn = (...args: unknown[]) => unknown;
const FAILED = "\u0001error";
const LUA_TNIL = 0;
const LUA_REGISTRYINDEX = -1_001_000;
const LUA_TSTRING = 4;
const utf8 = new TextDecoder();

/** A loaded adapter VM. Methods throw LuaScriptError; they never crash the caller otherwise. */
export class LuaVm {
  readonly adapter: string;
  readonly exports: LuaExports;
  #engine: LuaEngine;
  #invoke: LuaFn;
  #endStream: LuaFn;
  #endpoint: LuaFn;
  #lastError: LuaFn;
  #chunkRef: bigint;
  #chunksRef: bigint;
  #closed = false;
  #lengthSlot?: number;

  /** Use createLuaVm. */
  constructor(adapter: string, engine: LuaEngine, exports: LuaExports) {
    this.adapter = adapter;
    this.exports = exports;
    this.#engine = engine;
    const get = (name: string) => engine.global.get(name) as LuaFn;
    this.#invoke = get("__invoke");
    this.#endStream = get("__end_stream");
    this.#endpoint = get("__endpoint");
    this.#lastError = get("__last_error");
    const global = engine.global;
    global.lua.lua_getglobal(global.address, "__chunk");
    this.#chunkRef = BigInt(global.lua.luaL_ref(global.address, LUA_REGISTRYINDEX));
    global.lua.lua_getglobal(global.address, "__chunks");
    this.#chunksRef = BigInt(global.lua.luaL_ref(global.address, LUA_REGISTRYINDEX));
  }

  /** `endpoint(config, stream)`: the path appended to the base URL. */
  endpoint(configJson: string, stream: boolean): string {
    return this.#text("endpoint", this.#endpoint(configJson, stream));
  }

  /** `headers(config)` as a header map; may wait on http_get/http_post. */
  async headers(configJson: string): Promise<Record<string, string>> {
    const text = this.#text("headers", await this.#callAsync("__headers", configJson));
    const parsed: unknown = JSON.parse(text);
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      out[key] = String(value);
    }
    return out;
  }

  /** `transform_request(json)`; may wait on http_get/http_post. */
  async transformRequest(json: string): Promise<string> {
    const result = await this.#callAsync("__invoke_async", "transform_request", json);
    return this.#text("transform_request", result);
  }

  /** `transform_response(json)`. */
  transformResponse(json: string): string {
    return this.#text("transform_response", this.#invoke("transform_response", json));
  }

  /**
   * `transform_stream_chunk(line, state)` for stream `id`; undefined when the script skips
   * the line. The hot path: called through the C API on the main thread, skipping wasmoon's
   * per-call thread and registry lookups (about 3x cheaper per chunk).
   */
  streamChunk(id: number, line: string): string | undefined {
    const global = this.#engine.global;
    const api = global.lua;
    const L = global.address;
    const top = api.lua_gettop(L);
    try {
      api.lua_rawgeti(L, LUA_REGISTRYINDEX, this.#chunkRef);
      api.lua_pushnumber(L, id);
      this.#pushBytes(line);
      if (api.lua_pcallk(L, 2, 1, 0, 0, null) !== 0) {
        throw new LuaScriptError(this.adapter, "transform_stream_chunk", this.#topString());
      }
      const type = api.lua_type(L, -1);
      if (type === LUA_TNIL) return undefined;
      if (type !== LUA_TSTRING) {
        throw new LuaScriptError(this.adapter, "transform_stream_chunk", "returned a non-string");
      }
      const result = this.#topString();
      if (result === FAILED) throw this.#failure("transform_stream_chunk");
      return result;
    } finally {
      api.lua_settop(L, top);
    }
  }

  /**
   * `transform_stream_chunk` over every line of one network read in a single call into Lua:
   * one result per line, undefined where the script skipped it.
   */
  streamChunks(id: number, lines: readonly string[]): (string | undefined)[] {
    if (lines.length === 0) return [];
    const global = this.#engine.global;
    const api = global.lua;
    const L = global.address;
    const top = api.lua_gettop(L);
    try {
      api.lua_rawgeti(L, LUA_REGISTRYINDEX, this.#chunksRef);
      api.lua_pushnumber(L, id);
      // NUL separates the lines: no SSE data or NDJSON line carries one, and the bytes
      // cross with their length (lua_pushstring and UTF8ToString would stop at the first).
      this.#pushBytes(lines.join("\0"));
      if (api.lua_pcallk(L, 2, 1, 0, 0, null) !== 0) {
        throw new LuaScriptError(this.adapter, "transform_stream_chunk", this.#topString());
      }
      const result = this.#topString();
      if (result === FAILED) throw this.#failure("transform_stream_chunk");
      return result.split("\0").map((r: string) => r === "\u0002" ? undefined : r);
    } finally {
      api.lua_settop(L, top);
    }
  }

  /** Push `text` as a Lua string of its exact UTF-8 bytes, embedded NULs included. */
  #pushBytes(text: string): void {
    const global = this.#engine.global;
    const module = global.lua.module;
    const size = module.lengthBytesUTF8(text);
    const pointer = module._malloc(size + 1);
    try {
      module.stringToUTF8(text, pointer, size + 1);
      global.lua.lua_pushlstring(global.address, pointer, size);
    } finally {
      module._free(pointer);
    }
  }

  /** The string at the top of the stack, read with its length (it may hold NULs). */
  #topString(): string {
    const global = this.#engine.global;
    const module = global.lua.module;
    this.#lengthSlot ??= module._malloc(4);
    const pointer = module.ccall(
      "lua_tolstring",
      "number",
      ["number", "number", "number"],
      [global.address, -1, this.#lengthSlot],
    ) as number;
    if (pointer === 0) return "";
    const size = module.HEAPU32[this.#lengthSlot >>> 2] ?? 0;
    return utf8.decode(module.HEAPU8.subarray(pointer, pointer + size));
  }

  /** Drop the per-stream state of `id`. */
  endStream(id: number): void {
    if (!this.#closed) this.#endStream(id);
  }

  /** Free the VM (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#lengthSlot !== undefined) this.#engine.global.lua.module._free(this.#lengthSlot);
    this.#engine.global.close();
  }

  #text(fn: string, result: unknown): string {
    if (result === FAILED) throw this.#failure(fn);
    if (typeof result !== "string") throw this.#wrongType(fn, result);
    return result;
  }

  #failure(fn: string): LuaScriptError {
    return new LuaScriptError(this.adapter, fn, String(this.#lastError() ?? "unknown error"));
  }

  #wrongType(fn: string, value: unknown): LuaScriptError {
    const type = value === null || value === undefined ? "nil" : typeof value;
    return new LuaScriptError(this.adapter, fn, `returned ${type}, expected a string`);
  }

  /** Run a global on its own Lua thread so it may yield on host promises (http_*). */
  async #callAsync(fn: string, ...args: unknown[]): Promise<unknown> {
    const global = this.#engine.global;
    const thread = global.newThread();
    const index = global.getTop();
    try {
      thread.lua.lua_getglobal(thread.address, fn);
      for (const arg of args) thread.pushValue(arg);
      const result = await thread.run(args.length);
      return result[0];
    } finally {
      global.remove(index);
    }
  }
}

/**
 * Create a VM, mount json and the host functions, sandbox it and load `script` (named
 * `chunkname` in error lines). Throws LuaScriptError when the script does not load.
 */
export async function createLuaVm(
  adapter: string,
  script: string,
  chunkname: string,
  options: LuaVmOptions,
): Promise<LuaVm> {
  const engine = await options.factory.createEngine({
    openStandardLibs: true,
    injectObjects: false,
    enableProxy: false,
  });
  try {
    const log = options.logger.child({ adapter });
    const global = engine.global;
    global.set("__json_src", jsonLua);
    global.set("__instruction_limit", options.instructionLimit ?? DEFAULT_INSTRUCTION_LIMIT);
    global.set("__time_limit_s", (options.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS) / 1000);
    global.set("__host_log", (level: string, message: string) => logAt(log, level, message));
    global.set("__host_http", hostHttp(options.http));
    await engine.doString(preludeLua);
    const load = global.get("__load") as LuaFn;
    if (load(script, chunkname) === FAILED) {
      const detail = String((global.get("__last_error") as LuaFn)() ?? "unknown error");
      throw new LuaScriptError(adapter, "load", detail);
    }
    const raw = JSON.parse((global.get("__exports") as LuaFn)() as string) as Record<
      string,
      unknown
    >;
    return new LuaVm(adapter, engine, {
      ...(typeof raw.name === "string" ? { name: raw.name } : {}),
      ...(typeof raw.stream_format === "string" ? { streamFormat: raw.stream_format } : {}),
      endpoint: raw.endpoint === true,
      headers: raw.headers === true,
      transformRequest: raw.transform_request === true,
      transformResponse: raw.transform_response === true,
      transformStreamChunk: raw.transform_stream_chunk === true,
    });
  } catch (error) {
    engine.global.close();
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
