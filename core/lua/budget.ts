/**
 * The budget every HomeAgent Lua VM runs under: adapter scripts inside the daemon and plugin
 * scripts in their worker. It is enforced by the host around the VM, not by the script:
 * - a count hook on the main thread, which every thread and coroutine Lua creates inherits,
 *   counts instructions and reads the clock every 1,000 instructions;
 * - the allocator refuses growth past the memory limit, and past the deadline (so a loop of
 *   allocating C functions reaches a clock check too);
 * - budget.lua, loaded before any script, keeps a stop from being caught by the script's pcall,
 *   charges C library functions by their size and bounds pattern matching (patterns.lua).
 * A call that breached a budget stays breached until it returns to the host: every hook event
 * raises again and every allocation fails. Only strings and numbers cross into this file; it
 * uses wasmoon's engine by type, so core/ still does no IO of its own.
 */
import type { LuaEngine } from "wasmoon";
import {
  type LuaBreach,
  type LuaBudgetKind,
  LuaCall,
  type LuaCallOptions,
  type LuaLimits,
} from "./call.ts";
import budgetLua from "./budget.lua" with { type: "text" };
import compileLua from "./pattern_compile.lua" with { type: "text" };
import portLua from "./pattern_port.lua" with { type: "text" };
import patternsLua from "./patterns.lua" with { type: "text" };

type LuaApi = LuaEngine["global"]["lua"];

const HOOK_EVERY = 1000;
const LUA_MASKCOUNT = 8;
const LUA_REGISTRYINDEX = -1_001_000;
/** Steps of C matcher work (up to ~40 ns each in wasm) between the clock reads budget.lua asks for. */
const STEPS = 250_000;
/** Bytes the allocator hands out between clock reads. */
const SLICE_BYTES = 1 << 20;
/** Offsets in wasm32's lua_Debug (Lua 5.4): currentline, short_src; and its size. */
const AR_LINE = 24;
const AR_SRC = 44;
const AR_SIZE = 128;
const INTERNAL = ["budget", "patterns", "pattern_compile", "pattern_port"];
const utf8 = new TextDecoder();

/** Options of LuaBudget.install. */
export interface LuaBudgetOptions {
  limits: LuaLimits;
  /** Monotonic milliseconds. */
  now: () => number;
  /** Chunk names of the host's own Lua (its prelude), skipped when locating a script line. */
  internal?: string[];
}

/**
 * The budget of one engine. Install it right after createEngine, before any script runs; run
 * every entry into Lua inside run(call, …). Never throws except from install (budget.lua failed).
 */
export class LuaBudget {
  readonly limits: LuaLimits;
  #api: LuaApi;
  #L: number;
  #now: () => number;
  #active?: LuaCall;
  #ambient?: LuaCall;
  #used = 0;
  #grown = 0;
  #ar: number;
  #hook: number;
  #alloc: number;
  #stopRef = 0;
  #closed = false;
  #internal: Set<string>;

  private constructor(engine: LuaEngine, options: LuaBudgetOptions) {
    this.limits = options.limits;
    this.#now = options.now;
    this.#internal = new Set([...INTERNAL, ...options.internal ?? []]);
    this.#api = engine.global.lua;
    this.#L = engine.global.address;
    const module = this.#api.module;
    this.#ar = module._malloc(AR_SIZE);
    // Called for every allocation and free of the VM: the common cases stay in this closure.
    const free = module._free;
    const realloc = module._realloc;
    this.#alloc = module.addFunction((_ud: number, ptr: number, osize: number, nsize: number) => {
      if (nsize === 0) {
        if (ptr) {
          this.#used -= osize;
          free(ptr);
        }
        return 0;
      }
      const delta = ptr ? nsize - osize : nsize;
      if (delta > 0 && this.#active) return this.#grow(this.#active, ptr, nsize, delta);
      const out = realloc(ptr, nsize);
      if (out) this.#used += delta;
      return out;
    }, "iiiii");
    this.#hook = module.addFunction((L: number, ar: number) => this.#onHook(L, ar), "vii");
  }

  /** Take over `engine`'s allocator and hooks and load budget.lua. Throws when it fails to load. */
  static install(engine: LuaEngine, options: LuaBudgetOptions): LuaBudget {
    const budget = new LuaBudget(engine, options);
    const api = budget.#api;
    const L = budget.#L;
    api.lua_setallocf(L, budget.#alloc, null);
    const counted = engine.doStringSync('return collectgarbage("count")') as number;
    budget.#used = Math.ceil(counted * 1024);
    const global = engine.global;
    global.set("__budget_sources", {
      pattern_compile: compileLua,
      pattern_port: portLua,
      patterns: patternsLua,
    });
    global.set("__budget_check", () => budget.#check());
    global.set("__budget_note", (kind: string, detail: string, where: string) => {
      budget.#note(kind as LuaBudgetKind, detail, where);
    });
    global.set("__budget_memory", options.limits.memoryBytes);
    global.set("__budget_free", () => options.limits.memoryBytes - budget.#used);
    global.set("__budget_steps", STEPS);
    global.set("__budget_internal", [...budget.#internal]);
    budget.run(budget.begin(), () => {
      global.loadString(budgetLua, "=budget");
      if (api.lua_pcallk(L, 0, 1, 0, 0, null) !== 0) {
        const message = api.lua_tolstring(L, -1, null);
        api.lua_settop(L, 0);
        throw new Error(`budget.lua failed to load: ${message}`);
      }
      budget.#stopRef = api.luaL_ref(L, LUA_REGISTRYINDEX);
    });
    api.lua_sethook(L, budget.#hook, LUA_MASKCOUNT, HOOK_EVERY);
    return budget;
  }

  /** Bytes the VM holds now. */
  get memoryUsed(): number {
    return this.#used;
  }

  /** A new call (its wall clock read only when it has a wall cap). */
  begin(options: LuaCallOptions = {}): LuaCall {
    const { thread = this.#L, timeMs = this.limits.timeMs, wallMs = Infinity } = options;
    return new LuaCall(wallMs === Infinity ? 0 : this.#now(), thread, timeMs, wallMs);
  }

  /**
   * Run `fn` (which enters Lua: a pcall or resume, nothing else) as one segment of `call`;
   * nested runs restore the outer call after. Keep pushing arguments and reading results
   * outside: inside a breached call every allocation fails, and outside a protected call that
   * would abort the VM.
   */
  run<T>(call: LuaCall, fn: () => T): T {
    const outer = this.enter(call);
    try {
      return fn();
    } finally {
      this.leave(call, outer);
    }
  }

  /** run() without a closure, for hot paths: pass what enter returned to leave. */
  enter(call: LuaCall): LuaCall | undefined {
    const outer = this.#active;
    this.#active = call;
    this.#ambient = undefined;
    call.resume();
    return outer;
  }

  /** End the segment enter began. */
  leave(call: LuaCall, outer: LuaCall | undefined): void {
    call.pause(this.#now);
    this.#active = outer;
  }

  /** Whether `call`, waiting between segments, is past its wall cap (and so breached). */
  expired(call: LuaCall): boolean {
    return call.overTime(this.#now());
  }

  /** The breach of `call`, with the last line seen when the stop itself had none. */
  breachOf(call: LuaCall): LuaBreach | undefined {
    if (!call.breach && call.refused) {
      // Lua raised "not enough memory" without asking again (it does not collect mid-cycle).
      call.breach = { kind: "memory", limit: this.limits.memoryBytes };
      if (call.refused.where) call.breach.where = call.refused.where;
    }
    const breach = call.breach;
    if (breach && !breach.where && call.lastWhere) breach.where = call.lastWhere;
    return breach;
  }

  /** Release the hook and allocator functions; call after the engine is closed. */
  dispose(): void {
    if (this.#closed) return;
    this.#closed = true;
    const module = this.#api.module;
    module.removeFunction(this.#hook);
    module.removeFunction(this.#alloc);
    module._free(this.#ar);
  }

  #onHook(L: number, ar: number): void {
    const call = this.#active ?? this.#ambientCall();
    call.count += HOOK_EVERY;
    if (!call.breach) {
      const now = this.#now();
      const { instructions, memoryBytes } = this.limits;
      if (call.count > instructions) {
        call.breach = { kind: "instructions", limit: instructions };
      } else if (!call.overTime(now)) {
        if (call.ran(now) > call.timeMs / 2 || this.#used > memoryBytes / 2) {
          call.lastWhere = this.#where(L, ar) ?? call.lastWhere;
        }
        return;
      }
      call.breach!.where = this.#where(L, ar);
    }
    this.#raise(L);
  }

  /** What Lua runs outside any entry of the host is still limited, as one call from now on. */
  #ambientCall(): LuaCall {
    if (!this.#ambient) {
      this.#ambient = this.begin();
      this.#ambient.resume();
    }
    return this.#ambient;
  }

  #raise(L: number): void {
    this.#api.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.#stopRef));
    this.#api.lua_error(L);
  }

  /** `chunk:line` of the innermost script function on L's stack (the hook's own `ar` first). */
  #where(L: number, ar: number): string | undefined {
    this.#api.lua_getinfo(L, "Sl", ar);
    return this.#frame(ar) ?? this.#stackWhere(L, 1);
  }

  #stackWhere(L: number, from: number): string | undefined {
    const api = this.#api;
    for (let level = from; level < 200; level++) {
      if (api.lua_getstack(L, level, this.#ar) === 0) return undefined;
      api.lua_getinfo(L, "Sl", this.#ar);
      const frame = this.#frame(this.#ar);
      if (frame) return frame;
    }
    return undefined;
  }

  #frame(ar: number): string | undefined {
    const heap = this.#api.module.HEAPU8;
    const line = this.#api.module.HEAP32[(ar + AR_LINE) >> 2] ?? 0;
    if (line <= 0) return undefined;
    const end = heap.indexOf(0, ar + AR_SRC);
    const source = utf8.decode(heap.subarray(ar + AR_SRC, end));
    return this.#internal.has(source) ? undefined : `${source}:${line}`;
  }

  /**
   * Growth inside a call. The cap holds inside calls only: outside one, the host itself is
   * pushing arguments, and a refusal there would be an unprotected error that aborts the module.
   */
  #grow(call: LuaCall, ptr: number, nsize: number, delta: number): number {
    if (call.breach) return 0;
    if (this.#used + delta > this.limits.memoryBytes) {
      // Lua answers a refusal with a full collection and the same request again: only that
      // second refusal is a breach (the first may have been garbage not yet collected).
      if (call.refused?.size !== nsize) {
        call.refused = { size: nsize, where: this.#stackWhere(call.thread, 0) };
        return 0;
      }
      call.breach = { kind: "memory", limit: this.limits.memoryBytes };
      return this.#locate(call);
    }
    call.refused = undefined;
    this.#grown += delta;
    if (this.#grown > SLICE_BYTES) {
      this.#grown = 0;
      if (call.overTime(this.#now())) return this.#locate(call);
    }
    const out = this.#api.module._realloc(ptr, nsize);
    if (out) {
      this.#used += delta;
    } else if (!call.breach) {
      call.breach = {
        kind: "memory",
        limit: this.limits.memoryBytes,
        detail: "out of wasm memory",
      };
      this.#locate(call);
    }
    return out;
  }

  /** Locate the breach of `call` on its own thread; returns 0 (what a refusing allocator returns). */
  #locate(call: LuaCall): 0 {
    // Reading the stack allocates nothing, so it is safe in the middle of an allocation.
    const where = this.#stackWhere(call.thread, 0);
    if (where && call.breach) call.breach.where = where;
    return 0;
  }

  /** Whether the running call is breached (time is checked now); locates a new breach. */
  #check(): boolean {
    const call = this.#active;
    if (!call) return false;
    const fresh = !call.breach;
    if (!call.overTime(this.#now())) return false;
    // Located here: once breached, the script cannot allocate even the text of its line.
    if (fresh) this.#locate(call);
    return true;
  }

  #note(kind: LuaBudgetKind, detail: string, where: string): void {
    const call = this.#active;
    if (!call) return;
    if (!call.breach) {
      const limit = kind === "time"
        ? call.timeMs
        : kind === "memory"
        ? this.limits.memoryBytes
        : this.limits.instructions;
      call.breach = { kind, limit };
    }
    if (detail && !call.breach.detail) call.breach.detail = detail;
    if (where && !call.breach.where) call.breach.where = where;
  }
}
