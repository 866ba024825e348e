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
import budgetLua from "./budget.lua" with { type: "text" };
import compileLua from "./pattern_compile.lua" with { type: "text" };
import portLua from "./pattern_port.lua" with { type: "text" };
import patternsLua from "./patterns.lua" with { type: "text" };

/** What one call into a Lua VM may spend. */
export interface LuaLimits {
  /** VM instructions per call. */
  instructions: number;
  /** Wall time per call, ms (time spent waiting on the host counts). */
  timeMs: number;
  /** Bytes the VM may hold at once. */
  memoryBytes: number;
}

/** Which budget a call ran out of. */
export type LuaBudgetKind = "instructions" | "time" | "memory";

/** A call that ran out of a budget: which, its limit, and where the script was. */
export interface LuaBreach {
  kind: LuaBudgetKind;
  limit: number;
  /** `chunk:line` of the script when known. */
  where?: string;
  /** What asked for too much (`string.rep of 1000000000 bytes`). */
  detail?: string;
}

/** "time limit of 1000 ms exceeded at main.lua:3", for error messages. */
export function describeBreach(breach: LuaBreach): string {
  const limit = breach.kind === "time"
    ? `time limit of ${breach.limit} ms`
    : breach.kind === "memory"
    ? `memory limit of ${formatBytes(breach.limit)}`
    : `instruction limit of ${breach.limit}`;
  const detail = breach.detail ? ` (${breach.detail})` : "";
  return `${limit} exceeded${detail}${breach.where ? ` at ${breach.where}` : ""}`;
}

function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return Number.isInteger(mb) ? `${mb} MB` : `${bytes} bytes`;
}

/** Options of one call: its limits where they differ from the VM's. */
export interface LuaCallOptions {
  /** The Lua thread the call runs on (default the main one). */
  thread?: number;
  /** Execution time of this call, ms. */
  timeMs?: number;
  /** Wall time of this call including its waits on the host, ms (default: no cap). */
  wallMs?: number;
}

/**
 * One call into Lua, possibly resumed several times around waits on the host. Its time budget
 * counts the time it runs, not the time it waits; the wall cap counts both. A segment's clock
 * starts at its first check (count hook, charge or allocation slice), so a short call never
 * reads the clock at all; what runs before that first check is bounded by those same checks.
 */
export class LuaCall {
  readonly started: number;
  readonly timeMs: number;
  readonly wallMs: number;
  /** The Lua thread the call runs on: where a refused allocation is located. */
  readonly thread: number;
  /** Milliseconds run in finished segments. */
  spent = 0;
  count = 0;
  breach?: LuaBreach;
  /** The last script line seen while the call was past half of a limit. */
  lastWhere?: string;
  #running = false;
  #segment = NaN;

  constructor(started: number, thread: number, timeMs: number, wallMs: number) {
    this.started = started;
    this.thread = thread;
    this.timeMs = timeMs;
    this.wallMs = wallMs;
  }

  /** Milliseconds run so far, at time `now`. */
  ran(now: number): number {
    if (!this.#running) return this.spent;
    if (Number.isNaN(this.#segment)) this.#segment = now;
    return this.spent + now - this.#segment;
  }

  /** Record a time breach when the call is over either time budget at `now`. */
  overTime(now: number): boolean {
    if (this.breach) return true;
    if (this.ran(now) > this.timeMs) this.breach = { kind: "time", limit: this.timeMs };
    else if (now - this.started > this.wallMs) {
      this.breach = { kind: "time", limit: this.wallMs, detail: "waits on the host included" };
    }
    return this.breach !== undefined;
  }

  /** Mark a segment begun (its clock not read yet). */
  resume(): void {
    this.#running = true;
    this.#segment = NaN;
  }

  /** Mark the segment ended; reads the clock only when the segment had started one. */
  pause(now: () => number): void {
    if (!Number.isNaN(this.#segment)) this.spent += now() - this.#segment;
    this.#running = false;
    this.#segment = NaN;
  }
}

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
    this.#alloc = module.addFunction(
      (_ud: number, ptr: number, osize: number, nsize: number) => this.#allocate(ptr, osize, nsize),
      "iiiii",
    );
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
    const call = this.#active ?? (this.#ambient ??= this.begin());
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

  #allocate(ptr: number, osize: number, nsize: number): number {
    const module = this.#api.module;
    if (nsize === 0) {
      if (ptr) {
        this.#used -= osize;
        module._free(ptr);
      }
      return 0;
    }
    const delta = ptr ? nsize - osize : nsize;
    const call = this.#active;
    // The cap holds inside calls only: outside one, the host itself is pushing arguments, and
    // a refusal there would be an unprotected error that aborts the whole wasm module.
    if (delta > 0 && call) {
      if (call.breach) return 0;
      if (this.#used + delta > this.limits.memoryBytes) {
        call.breach = { kind: "memory", limit: this.limits.memoryBytes };
        return this.#refuse(call);
      }
      this.#grown += delta;
      if (this.#grown > SLICE_BYTES) {
        this.#grown = 0;
        if (call.overTime(this.#now())) return this.#refuse(call);
      }
    }
    const out = module._realloc(ptr, nsize);
    if (out) this.#used += delta;
    else if (call && !call.breach) {
      call.breach = {
        kind: "memory",
        limit: this.limits.memoryBytes,
        detail: "out of wasm memory",
      };
      this.#refuse(call);
    }
    return out;
  }

  /** Locate the breach that makes the allocator refuse on the call's own thread; returns 0. */
  #refuse(call: LuaCall): 0 {
    // Reading the stack allocates nothing, so it is safe in the middle of an allocation.
    const where = this.#stackWhere(call.thread, 0);
    if (where && call.breach) call.breach.where = where;
    return 0;
  }

  #check(): boolean {
    const call = this.#active;
    return call !== undefined && call.overTime(this.#now());
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
