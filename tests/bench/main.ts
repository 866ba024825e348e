/**
 * The benchmark harness (`deno task bench [--json] [--only a,b]`, DESIGN.md §9). Each bench
 * module exports `figures`: a map from figure name to a function measuring it. A function may
 * return one figure, or several at once (keyed by their names) when one measurement yields them.
 * A bench that throws is reported as `{"error": "…"}` under each of its names; the rest still run.
 */
// deno-lint-ignore-file no-console
import { parseArgs } from "node:util";
import type { FigureFn } from "./_figure.ts";
import { failedFigures, formatTable, measureFigures } from "./_harness.ts";
import { figures as kernelFigures } from "./kernel_bench.ts";
import { figures as daemonFigures } from "./daemon_bench.ts";
import { figures as bundleFigures } from "./bundle_bench.ts";
import { figures as wasmFigures } from "./wasm_bench.ts";
import { figures as embedFigures } from "./embed_bench.ts";
import { figures as onnxFigures } from "./onnx_bench.ts";
import { figures as recallFigures } from "./recall_bench.ts";
import { figures as recallEmbedFigures } from "./recall_embeds_bench.ts";
import { figures as schedulerFigures } from "./scheduler_bench.ts";
import { figures as memoryFigures } from "./memory_bench.ts";
import { figures as adapterFigures } from "./adapter_bench.ts";
import { figures as graphFigures } from "./graph_bench.ts";
import { figures as pluginFigures } from "./plugin_bench.ts";
import { figures as webFigures } from "./web_bench.ts";
import { figures as webPageFigures } from "./web_page_bench.ts";
import { figures as mcpFigures } from "./mcp_bench.ts";
import { figures as luaFigures } from "./lua_bench.ts";
import { figures as turnsFigures } from "./turns_bench.ts";
import { figures as mediaFigures } from "./media_bench.ts";
import { figures as tokenFigures } from "./token_bench.ts";
import { figures as upkeepFigures } from "./upkeep_bench.ts";
import { figures as forgetFigures } from "./forget_bench.ts";

const ALL: Record<string, FigureFn> = {
  ...kernelFigures,
  ...daemonFigures,
  ...bundleFigures,
  ...wasmFigures,
  ...schedulerFigures,
  ...memoryFigures,
  ...adapterFigures,
  ...graphFigures,
  ...embedFigures,
  ...onnxFigures,
  ...recallFigures,
  ...recallEmbedFigures,
  ...pluginFigures,
  ...mcpFigures,
  ...webFigures,
  ...webPageFigures,
  ...luaFigures,
  ...mediaFigures,
  ...turnsFigures,
  ...tokenFigures,
  ...upkeepFigures,
  ...forgetFigures,
};

function machine() {
  return {
    os: Deno.build.os,
    arch: Deno.build.arch,
    cpus: navigator.hardwareConcurrency,
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    memoryGiB: Math.round(Deno.systemMemoryInfo().total / 2 ** 30),
    loadavg: Deno.loadavg(),
    date: new Date().toISOString(),
  };
}

async function run(): Promise<number> {
  const { values } = parseArgs({
    args: Deno.args,
    options: { json: { type: "boolean" }, only: { type: "string" } },
  });
  const only = values.only?.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = only?.filter((name) => !(name in ALL)) ?? [];
  if (unknown.length > 0) {
    console.error(
      `error: unknown figure(s) ${unknown.join(", ")}; known: ${Object.keys(ALL).join(", ")}`,
    );
    return 2;
  }
  const results = await measureFigures(ALL, {
    only,
    onStart: (name) => {
      if (!values.json) console.error(`measuring ${name} ...`);
    },
  });
  if (values.json) {
    console.log(JSON.stringify({ figures: results, machine: machine() }, null, 2));
  } else {
    console.log(formatTable(results));
  }
  const failed = failedFigures(results);
  if (failed.length > 0) {
    console.error(`${failed.length} figure(s) could not be measured: ${failed.join(", ")}`);
  }
  return 0;
}

Deno.exit(await run());
