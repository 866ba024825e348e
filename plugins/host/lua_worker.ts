/**
 * The worker one Lua plugin runs in (started by lua.ts): a wasmoon VM under its budget, outside
 * the kernel's event loop, so that the kernel can terminate it whatever the script does. It
 * runs one call at a time as the host asks and turns the script's sdk calls into requests.
 */
import { LuaFactory, type LuaThread } from "wasmoon";
import { describeBreach, LuaBudget, resumeUnderBudget } from "../../core/mod.ts";
import type { HostMessage, LuaEntry } from "./lua_wire.ts";
import prelude from "./lua_prelude.lua" with { type: "text" };

type Engine = Awaited<ReturnType<LuaFactory["createEngine"]>>;
type Init = Extract<HostMessage, { type: "init" }>;
type Pending = (value: unknown) => void;

const LUA_REGISTRYINDEX = -1_001_000;
const ENTRIES: Record<LuaEntry, string> = {
  load: "__load_main",
  start: "__start",
  stop: "__stop",
  invoke: "__invoke",
};

let vm: { engine: Engine; budget: LuaBudget; refs: Map<LuaEntry, bigint>; wallMs: number };
const pending = new Map<number, Pending>();
let nextRequest = 1;
let lastRequest = 0;
let queue: Promise<void> = Promise.resolve();

/** The worker's side of the channel (typed here: this module is checked with the main libs). */
const port = self as unknown as {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent<HostMessage>) => void) | null;
};

port.onmessage = (event: MessageEvent<HostMessage>) => {
  const message = event.data;
  switch (message.type) {
    case "init":
      void init(message).then(
        () => port.postMessage({ type: "ready" }),
        (error) => port.postMessage({ type: "fatal", error: String(error?.message ?? error) }),
      );
      break;
    case "call":
      queue = queue.then(() => run(message.id, message.entry, message.args));
      break;
    case "reply": {
      const resolve = pending.get(message.id);
      pending.delete(message.id);
      resolve?.(message.ok ? toLua(message.value) : { __error: message.error });
      break;
    }
  }
};

async function init(message: Init): Promise<void> {
  const wasmPath = message.wasmPath ??
    new URL("glue.wasm", import.meta.resolve("wasmoon")).pathname;
  const engine = await new LuaFactory(wasmPath).createEngine({
    openStandardLibs: true,
    injectObjects: false,
    enableProxy: false,
  });
  const budget = LuaBudget.install(engine, {
    limits: message.limits,
    now: () => performance.now(),
    internal: ["prelude"],
  });
  const global = engine.global;
  global.set("__host", hostTable());
  global.loadString(prelude, "=prelude");
  const status = budget.run(
    budget.begin(),
    () => global.lua.lua_pcallk(global.address, 0, 0, 0, 0, null),
  );
  if (status !== 0) throw new Error(`The Lua plugin prelude failed (status ${status})`);
  const refs = new Map<LuaEntry, bigint>();
  for (const [entry, name] of Object.entries(ENTRIES) as [LuaEntry, string][]) {
    global.lua.lua_getglobal(global.address, name);
    refs.set(entry, BigInt(global.lua.luaL_ref(global.address, LUA_REGISTRYINDEX)));
  }
  vm = { engine, budget, refs, wallMs: message.wallMs };
}

function hostTable() {
  return {
    request: (method: string, params: unknown) => {
      const id = nextRequest++;
      lastRequest = id;
      const answer = new Promise((resolve) => pending.set(id, resolve));
      port.postMessage({ type: "request", id, method, params: sendable(params) });
      return answer;
    },
    log: (level: string, message: string) => port.postMessage({ type: "log", level, message }),
    json_encode: (value: unknown) => JSON.stringify(value ?? null),
    json_decode: (text: string) => JSON.parse(text),
  };
}

/** Run one entry point as one budgeted call and post its result. */
async function run(id: number, entry: LuaEntry, args: unknown[]): Promise<void> {
  const { engine, budget, refs, wallMs } = vm;
  const global = engine.global;
  const thread: LuaThread = global.newThread();
  const index = global.getTop();
  try {
    global.lua.lua_rawgeti(thread.address, LUA_REGISTRYINDEX, refs.get(entry)!);
    for (const arg of args) thread.pushValue(toLua(arg));
    const call = budget.begin({ thread: thread.address, wallMs });
    const end = await resumeUnderBudget(budget, call, thread, args.length, {
      onWait: () => port.postMessage({ type: "wait", on: lastRequest }),
    });
    const breach = budget.breachOf(call);
    if (breach) return post(id, { ok: false, error: describeBreach(breach), breach });
    if (end.status !== 0) return post(id, { ok: false, error: errorText(thread.getValue(-1)) });
    const [ok, value] = thread.getStackValues();
    if (ok !== true) return post(id, { ok: false, error: errorText(value) });
    return post(id, { ok: true, value: sendable(value) });
  } catch (error) {
    post(id, { ok: false, error: `Lua plugin call failed: ${errorText(error)}` });
  } finally {
    global.remove(index);
  }
}

function post(id: number, result: Record<string, unknown>): void {
  port.postMessage({ type: "result", id, ...result, memoryBytes: vm.budget.memoryUsed });
}

/** A Lua value as plain data: functions and userdata dropped, cycles refused. */
function sendable(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object") return typeof value === "function" ? null : value;
  return JSON.parse(JSON.stringify(value));
}

/** Plain data as wasmoon pushes it safely: JSON null becomes nil (wasmoon cannot push null). */
function toLua(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) return value.map(toLua);
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== null && item !== undefined) out[key] = toLua(item);
    }
    return out;
  }
  return value;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  return String(error ?? "unknown error");
}
