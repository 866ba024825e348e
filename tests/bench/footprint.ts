/**
 * Each part's share of the agent's resident memory (docs/benchmarks.md "Footprint"): the
 * folders in the order the agent imports them, then what loads only on first use. One process,
 * each step's growth of VmRSS after a GC; run with the agent's V8 flags:
 * `deno run -A --v8-flags=--expose-gc,--max-semi-space-size=4,--optimize-for-size tests/bench/footprint.ts`.
 * Shares are approximate (the heap grows in steps); the sum is what matters.
 */
// deno-lint-ignore-file no-console
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

/**
 * import() with a computed specifier: Deno loads every literal one before the program runs,
 * which would put each part's source in the first row.
 */
function load(specifier: string): Promise<unknown> {
  const url = specifier.startsWith(".") ? new URL(specifier, import.meta.url).href : specifier;
  return import(url);
}

function rssMb(): number {
  gc();
  const status = Deno.readTextFileSync("/proc/self/status");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

const steps: [string, () => Promise<unknown>][] = [
  // What core/ brings in, each apart: Deno's Node layer (every daemon needs node:sqlite), the
  // two npm packages every module's schemas use, then core's own code.
  ["Deno's Node layer (node:path, node:process, node:sqlite)", async () => {
    for (const m of ["node:path", "node:process", "node:sqlite"]) await load(m);
  }],
  ["zod", () => load("zod")],
  ["@cfworker/json-schema", () => load("@cfworker/json-schema")],
  ["core/ (its own code, schemas and settings)", () => load("../../core/mod.ts")],
  ["wasm/ (hot loops)", () => load("../../wasm/mod.ts")],
  ["adapters/ (providers, Lua adapter runtime)", () => load("../../adapters/mod.ts")],
  ["memory/", () => load("../../memory/mod.ts")],
  ["plugins/ (host and built-ins)", () => load("../../plugins/mod.ts")],
  ["web/ (with hono)", () => load("../../web/mod.ts")],
  [
    "lazy: the page's scripts and stylesheet (the first page load)",
    () => load("../../web/_asset_texts.ts"),
  ],
  ["lazy: jieba glue", () => load("jieba-wasm/web")],
  ["lazy: jieba wasm and dictionary (first Chinese text)", async () => {
    const memory = await load("../../memory/mod.ts") as typeof import("../../memory/mod.ts");
    const { createTextAnalyzer } = memory;
    (await createTextAnalyzer()).tokenize("第一句中文唤醒分词词典");
  }],
  ["lazy: wasmoon and one Lua VM (a Lua source or plugin)", async () => {
    const { LuaFactory } = await load("wasmoon") as typeof import("wasmoon");
    (await new LuaFactory().createEngine()).doStringSync("return 1");
  }],
  ["lazy: MCP SDK (a configured server, /mcp, homeagent mcp)", async () => {
    await load("@modelcontextprotocol/sdk/client/index.js");
    await load("@modelcontextprotocol/sdk/server/index.js");
    await load("@modelcontextprotocol/sdk/types.js");
  }],
  ["lazy: yaml (the first SKILL.md)", () => load("yaml")],
  ["lazy: fflate (a model archive, a plugin package, an image)", () => load("fflate")],
  [
    "lazy: node:crypto (a download, a backup, a model, a forgotten name)",
    () => load("node:crypto"),
  ],
  ["lazy: diff (the first changeset shown)", () => load("diff")],
  ["lazy: onnxruntime-web (an ONNX model)", () => load("onnxruntime-web/wasm")],
];

const rows: [string, number][] = [["deno itself, before any of ours", rssMb()]];
let last = rows[0]![1];
for (const [name, step] of steps) {
  await step();
  const now = rssMb();
  rows.push([name, now - last]);
  last = now;
}
for (const [name, mb] of rows) console.log(`| ${name} | ${mb.toFixed(1)} MB |`);
console.log(`| total | ${last.toFixed(1)} MB |`);
