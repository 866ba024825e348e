/**
 * Lua budget figures.
 *
 * `lua_runaway_stop_ms`: p99 time from the start of a call that runs away to the error that
 * stops it, for each kind of runaway of issue 11 (a busy loop in a coroutine, a pathological
 * pattern, string.rep growth, allocation growth), in a Lua plugin (real registry, its worker)
 * and in an adapter VM (in the daemon, where there are no coroutines: the loop is a plain one);
 * the figure is the worst of the eight. The time limit is
 * LIMIT_MS with the instruction limit out of the way, so the time budget is what is measured;
 * the growth kinds stop at the 32 MB memory limit before it. Target ≤ 1.2 × LIMIT_MS.
 * `lua_runaway_stop_ms_<kind>`: the same per kind (worst of the two VMs).
 */
import { createLuaVm } from "../../adapters/mod.ts";
import { silentLogger } from "../../core/mod.ts";
import { RUNAWAYS, writeLuaPlugin } from "../fixtures/lua_runaways.ts";
import { createHarness } from "../plugins/host/_support.ts";
import { type Figure, quantile, round } from "./_figure.ts";

const LIMIT_MS = 500;
const MEMORY = 32 * 1024 * 1024;
const SAMPLES = 12;

const KINDS = {
  loop: RUNAWAYS.loop,
  pattern: RUNAWAYS.pattern,
  rep: RUNAWAYS.rep,
  alloc: RUNAWAYS.alloc,
};
type Kind = keyof typeof KINDS;

function functions(adapter: boolean): string {
  return Object.entries(KINDS).map(([kind, body]) => {
    const code = adapter && kind === "loop" ? RUNAWAYS.plainLoop : body;
    return `function run_${kind}()\n  ${code}\nend`;
  }).join("\n");
}

async function pluginStops(kind: Kind): Promise<number[]> {
  await using h = await createHarness([], {
    load: false,
    luaTimeLimitMs: LIMIT_MS,
    luaInstructionLimit: 1e12,
    luaMemoryLimitBytes: MEMORY,
    backoffMs: [60_000],
  });
  await writeLuaPlugin(
    h.pluginsDir,
    "runaway",
    `${functions(false)}\nreturn { start = function(sdk)
  sdk.register_tool({ name = "runaway", description = "x" }, run_${kind})
end }`,
  );
  await h.registry.load();
  const stops: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    // A VM that ran out of memory was ended: start it again (reload resets the crash count).
    if (h.registry.info("runaway").state !== "running") await h.registry.reload("runaway");
    const started = performance.now();
    const result = await h.call("runaway");
    stops.push(performance.now() - started);
    if (!result.isError || !/ exceeded/.test(result.content)) {
      throw new Error(`Runaway "${kind}" did not stop on a budget: ${result.content}`);
    }
  }
  return stops;
}

async function adapterStops(kind: Kind): Promise<number[]> {
  const script = `${
    functions(true)
  }\nfunction transform_stream_chunk(line, state)\n  run_${kind}()\n  return line\nend`;
  const stops: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const vm = await createLuaVm("runaway", script, "runaway.lua", {
      logger: silentLogger,
      instructionLimit: 1e12,
      timeLimitMs: LIMIT_MS,
      memoryLimitBytes: MEMORY,
    });
    try {
      const started = performance.now();
      try {
        vm.streamChunk(1, "x");
        throw new Error(`Runaway "${kind}" returned`);
      } catch (error) {
        stops.push(performance.now() - started);
        if (!/ exceeded/.test(String(error))) throw error;
      }
    } finally {
      vm.close();
    }
  }
  return stops;
}

async function runaways(): Promise<Record<string, Figure>> {
  const figures: Record<string, Figure> = {};
  let worst = 0;
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const plugin = await pluginStops(kind);
    const adapter = await adapterStops(kind);
    const p99 = Math.max(quantile(plugin, 0.99), quantile(adapter, 0.99));
    worst = Math.max(worst, p99);
    figures[`lua_runaway_stop_ms_${kind}`] = { value: round(p99, 1), unit: "ms" };
  }
  return {
    "lua_runaway_stop_ms": { value: round(worst, 1), unit: "ms" },
    "lua_runaway_limit_ms": { value: LIMIT_MS, unit: "ms" },
    ...figures,
  };
}

/** The Lua budget figures by name. */
export const figures = {
  "lua_runaway_stop_ms": runaways,
  "lua_runaway_limit_ms": runaways,
  "lua_runaway_stop_ms_loop": runaways,
  "lua_runaway_stop_ms_pattern": runaways,
  "lua_runaway_stop_ms_rep": runaways,
  "lua_runaway_stop_ms_alloc": runaways,
};
