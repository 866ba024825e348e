/**
 * `deno task build:agent [--out DIR]`: the daemon of this checkout as a few pre-built JavaScript
 * files, which `serve` runs as its agent while they match the source (plugins/guard/agent_cache.ts).
 * Deno then loads a dozen files at start instead of ~360 TypeScript modules with their inline
 * source maps (docs/benchmarks.md "The guard and the daemon's footprint").
 *
 * Unlike the one-file bundle (.ci/bundle.ts) this is the checkout run faster, not a deployment:
 * esbuild splits what loads on first use into chunks of their own (loaded when first imported,
 * as from the source tree); each module keeps its own `import.meta.url` and `Deno.mainModule`,
 * so everything found beside a source file (the workers, the plugin SDK's import map, the launch
 * facts) is found there; wasm files are imported from the checkout, and the agent runs with the
 * checkout's deno.json. Written to `dist/agent/<key>/`, then `dist/agent/current.json` lists
 * every file it was built from, with size and mtime.
 */
// deno-lint-ignore-file no-console
import * as esbuild from "esbuild";
import { dirname, join, relative } from "node:path";
import { parseArgs } from "node:util";
import {
  asciiOnly,
  literalDaemonImports,
  nodeBuiltinsAndDevTools,
  PROGRAM_BUILD,
} from "./bundle.ts";
import {
  AGENT_CACHE_DIR,
  AGENT_CACHE_MANIFEST,
  type AgentCacheManifest,
  checkAgentCache,
} from "../plugins/guard/agent_cache.ts";

const ROOT = join(dirname(new URL(import.meta.url).pathname), "..");
/** The folders of the program's own source: every file there is an input (workers included). */
const SOURCE = ["core", "adapters", "memory", "plugins", "web", "wasm"];
/** Builds kept besides the newest: an agent still running one loads its lazy chunks from it. */
const KEEP = 3;

/**
 * The bundle's banner (.ci/bundle.ts) without its static import of `node:module`, which every
 * chunk carries: `require` gets node:module on its first call (a package's built-in, on first
 * use), so the agent's start loads none of Deno's `node:` layer but node:sqlite (below).
 */
export const AGENT_BANNER =
  `const __homeagentSelf = import.meta.url.startsWith("file:") ? import.meta.url : "file:///homeagent/worker.js";
let __homeagentRequire;
function require(id) {
  __homeagentRequire ??= globalThis.process.getBuiltinModule("node:module").createRequire(__homeagentSelf);
  return __homeagentRequire(id);
}
const __filename = new URL(__homeagentSelf).pathname;
const __dirname = new URL(".", __homeagentSelf).pathname;`;

/**
 * The `node:` modules our own code imports at start, built from .ci/agent_node/ instead on POSIX
 * (the same functions, checked against Node's by tests/e2e/agent_node_test.ts): the first module
 * of Deno's `node:` layer costs the agent ~25 ms of CPU, the rest ~30 ms more (docs/benchmarks.md).
 * Packages keep the real ones.
 */
const AGENT_NODE = ["path", "url", "os", "util"];

/** What buildAgentCache wrote. */
export interface AgentBuild {
  /** The entry module. */
  entry: string;
  /** Bytes of every file written, and of the chunks the agent loads at start. */
  bytes: number;
  startBytes: number;
  /** The source files (and package files) in those chunks, relative to the checkout. */
  startInputs: string[];
  inputs: number;
  /** esbuild's account of the build (startOutputs reads it). */
  metafile: esbuild.Metafile;
}

/** Build the agent cache into `outDir` (default the checkout's dist/agent). */
export async function buildAgentCache(outDir = join(ROOT, AGENT_CACHE_DIR)): Promise<AgentBuild> {
  let result;
  try {
    result = await esbuild.build({
      ...PROGRAM_BUILD,
      banner: { js: AGENT_BANNER },
      entryPoints: [join(ROOT, "main.ts")],
      splitting: true,
      outdir: join(outDir, "_build"),
      chunkNames: "chunk-[hash]",
      absWorkingDir: ROOT,
      plugins: [agentPlugin()],
    });
  } finally {
    await esbuild.stop();
  }
  const built = Object.keys(result.metafile!.inputs).filter((path) => !path.includes(":"));
  const inputs = await inputFiles(built);
  const key = await contentKey([...new Set([...built, ...inputs.map(([path]) => path)])].sort());
  const dir = join(outDir, key);
  await Deno.remove(`${dir}.tmp`, { recursive: true }).catch(() => {});
  await Deno.mkdir(`${dir}.tmp`, { recursive: true });
  let bytes = 0;
  for (const file of result.outputFiles!) {
    const name = relative(join(outDir, "_build"), file.path);
    const text = asciiOnly(name === "main.js" ? file.text : computedChunkImports(file.text));
    bytes += text.length;
    await Deno.writeTextFile(join(`${dir}.tmp`, name), text);
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.rename(`${dir}.tmp`, dir);
  const manifest: AgentCacheManifest = { format: 1, entry: `${key}/main.js`, inputs };
  const path = join(outDir, AGENT_CACHE_MANIFEST);
  await Deno.writeTextFile(`${path}.tmp`, JSON.stringify(manifest) + "\n");
  await Deno.rename(`${path}.tmp`, path);
  await prune(outDir, key);
  const start = startOutputs(result.metafile!).map((out) => result.metafile!.outputs[out]!);
  return {
    entry: join(dir, "main.js"),
    bytes,
    startBytes: start.reduce((sum, out) => sum + out.bytes, 0),
    startInputs: [...new Set(start.flatMap((out) => Object.keys(out.inputs)))].sort(),
    inputs: inputs.length,
    metafile: result.metafile!,
  };
}

/** Resolution as from the checkout: each module's own URL, wasm from its file. */
function agentPlugin(): esbuild.Plugin {
  const mainUrl = new URL(`file://${join(ROOT, "main.ts")}`).href;
  return {
    name: "homeagent-agent",
    setup(build) {
      // A wasm file is read from the checkout when its importer runs (the source tree's raw
      // import does the same); esbuild would drop an external import's `with { type: "bytes" }`.
      build.onResolve({ filter: /\.wasm$/ }, async (args) => {
        if (args.pluginData === "wasm") return undefined;
        const { path, errors } = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: "wasm",
        });
        return errors.length > 0 ? { errors } : { path, namespace: "homeagent-wasm" };
      });
      build.onLoad({ filter: /.*/, namespace: "homeagent-wasm" }, (args) => ({
        contents: `export default Deno.readFileSync(new URL(${
          JSON.stringify(new URL(`file://${args.path}`).href)
        }));`,
        loader: "js",
      }));
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!args.path.startsWith(`${ROOT}/`) || args.path.includes("/node_modules/")) {
          return undefined;
        }
        let text = await Deno.readTextFile(args.path);
        if (args.path === join(ROOT, "main.ts")) text = literalDaemonImports(text);
        return { contents: asFromSource(text, args.path, mainUrl), loader: "ts" };
      });
      if (Deno.build.os !== "windows") {
        const filter = new RegExp(`^node:(${AGENT_NODE.join("|")})$`);
        build.onResolve({ filter }, (args) => {
          if (!args.importer.startsWith(`${ROOT}/`) || args.importer.includes("/node_modules/")) {
            return undefined;
          }
          return { path: join(ROOT, ".ci/agent_node", `${args.path.slice(5)}.ts`) };
        });
      }
      // zod's `z.locales` and `z.core.locales` are namespaces of all its ~45 locales: 267 kB of
      // the ~1.5 MB the agent parses at start, where it uses English only (zod's own default,
      // set by classic/schemas.js; the daemon never calls z.config). The agent's namespace
      // holds `en` alone (tests/e2e/agent_cache_test.ts).
      build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
        if (!/[/\\]zod[/\\]v4[/\\](classic|core)$/.test(args.resolveDir)) return undefined;
        return { path: join(args.resolveDir, "../locales/index.js"), namespace: "zod-locales" };
      });
      build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
        contents: `export { default as en } from ${
          JSON.stringify(join(dirname(args.path), "en.js"))
        };`,
        loader: "js",
        resolveDir: dirname(args.path),
      }));
      // Packages that find files beside their own (node-pty its native binding) load from
      // node_modules as from the source tree, by a computed import (computedChunkImports).
      build.onResolve(
        { filter: RUNTIME_PACKAGES },
        (args) => ({ path: args.path, external: true }),
      );
      nodeBuiltinsAndDevTools(build);
    },
  };
}

/** Packages the agent imports from node_modules at run time instead of carrying them. */
const RUNTIME_PACKAGE_NAMES = ["yaml", "@lydell/node-pty"];
const RUNTIME_NAMES = RUNTIME_PACKAGE_NAMES.map((name) => name.replaceAll("/", "\\/")).join("|");
const RUNTIME_PACKAGES = new RegExp(`^(${RUNTIME_NAMES})$`);
/** An import() of one of them, as esbuild leaves it. */
const RUNTIME_IMPORT = new RegExp(`\\bimport\\(\\s*"(${RUNTIME_NAMES})"\\s*\\)`, "g");

/**
 * `text` with `import.meta.url`, `Deno.mainModule` and `import.meta.resolve("…")` replaced by
 * what they are for the source file `path`, run from the checkout.
 */
export function asFromSource(text: string, path: string, mainUrl: string): string {
  const url = new URL(`file://${path}`).href;
  return text
    .replaceAll("import.meta.url", JSON.stringify(url))
    .replaceAll("Deno.mainModule", JSON.stringify(mainUrl))
    .replace(/import\.meta\.resolve\(\s*"([^"]+)"\s*\)/g, (_all, specifier: string) => {
      return JSON.stringify(import.meta.resolve(specifier));
    });
}

/**
 * `js` with each `import("./chunk-X.js")` made a computed import: Deno reads and parses every
 * literal import() of the program before it starts (measured: all 45 chunks, 6.5 MB, at every
 * start), so only main.js's, the folders it loads at once, stay literal. The packages taken from
 * node_modules at run time (RUNTIME_PACKAGES) get a computed import for the same reason.
 */
export function computedChunkImports(js: string): string {
  return js.replace(
    /\bimport\(\s*"(\.\/chunk-[\w-]+\.js)"\s*\)/g,
    (_all, chunk: string) => `import(new URL(${JSON.stringify(chunk)}, import.meta.url).href)`,
  ).replace(RUNTIME_IMPORT, (_all, name: string) => `import(String(${JSON.stringify(name)}))`);
}

/**
 * What the guard checks before it runs the build: the program's own files (the build's inputs
 * and every file of its source folders), its config and lock file, and the package.json of each
 * package version it carries (a version's folder is named after it: another version is another
 * path). The packages' other files (~480) are not listed, so the check stats ~470 files, not
 * ~930; nor is node_modules/.deno itself, whose mtime changes whenever deno runs.
 */
async function inputFiles(built: string[]): Promise<[string, number, number][]> {
  const paths = new Set(built.filter((path) => !path.startsWith("node_modules/")));
  const config = ["main.ts", "deno.json", "deno.lock", ".ci/agent_build.ts", ".ci/bundle.ts"];
  for (const name of config) paths.add(name);
  for (const path of built) {
    const root = /^node_modules\/\.deno\/[^/]+\/node_modules\/(?:@[^/]+\/)?[^/]+\//.exec(path);
    if (root) paths.add(`${root[0]}package.json`);
  }
  for (const folder of SOURCE) {
    for await (const file of walk(join(ROOT, folder))) paths.add(relative(ROOT, file));
  }
  const rows: [string, number, number][] = [];
  for (const path of [...paths].sort()) {
    const info = await Deno.stat(join(ROOT, path));
    rows.push([path, info.size, info.mtime!.getTime()]);
  }
  return rows;
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && entry.name !== "node_modules") yield* walk(path);
    else if (entry.isFile) yield path;
  }
}

/** A hash of the names and contents of `paths` (a folder's: its entries' names). */
async function contentKey(paths: string[]): Promise<string> {
  const parts: BlobPart[] = [];
  for (const path of paths) {
    const file = join(ROOT, path);
    const content = (await Deno.stat(file)).isDirectory
      ? (await Array.fromAsync(Deno.readDir(file), (e) => e.name)).sort().join("\n")
      : await Deno.readFile(file);
    parts.push(path, "\0", content, "\0");
  }
  const bytes = await new Blob(parts).arrayBuffer();
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Remove all but the KEEP newest builds besides `current`, and any half-written one. */
async function prune(outDir: string, current: string): Promise<void> {
  const builds: { name: string; mtime: number }[] = [];
  for await (const entry of Deno.readDir(outDir)) {
    if (!entry.isDirectory || entry.name === current) continue;
    const half = entry.name === "_build" || entry.name.endsWith(".tmp");
    const mtime = half ? -1 : (await Deno.stat(join(outDir, entry.name))).mtime!.getTime();
    builds.push({ name: entry.name, mtime });
  }
  builds.sort((a, b) => b.mtime - a.mtime);
  const old = builds.filter((b, i) => b.mtime < 0 || i >= KEEP);
  for (const { name } of old) await Deno.remove(join(outDir, name), { recursive: true });
}

/**
 * The output files the agent loads before `serve` runs: the entry, everything it imports (its
 * import() calls are the folders it loads at once) and their static imports; a chunk imported
 * later loads on first use.
 */
export function startOutputs(metafile: esbuild.Metafile): string[] {
  const entry = Object.keys(metafile.outputs).find((out) => out.endsWith("/main.js"))!;
  const seen = new Set<string>();
  const visit = (out: string, any: boolean) => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const { path, kind } of metafile.outputs[out]?.imports ?? []) {
      if (path in metafile.outputs && (any || kind === "import-statement")) visit(path, false);
    }
  };
  visit(entry, true);
  return [...seen];
}

/**
 * `--if-stale` (what `deno task start` runs first): build only when the cache does not match the
 * checkout, and never stop the start: a build that fails says why in one line, and `serve` then
 * runs its agent from the source tree as before.
 */
async function buildIfStale(out?: string): Promise<AgentBuild | undefined> {
  const cache = checkAgentCache(ROOT);
  if (!("stale" in cache)) return undefined;
  console.error(`Building the agent cache for a faster start (${cache.stale})`);
  try {
    return await buildAgentCache(out);
  } catch (error) {
    console.error(`The agent cache was not built, so serve runs the source tree: ${error}`);
    return undefined;
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { out: { type: "string" }, "if-stale": { type: "boolean" } },
  });
  const build = values["if-stale"]
    ? await buildIfStale(values.out)
    : await buildAgentCache(values.out);
  const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
  if (build) {
    console.log(
      `wrote ${build.entry} (${mb(build.bytes)} in all, ${mb(build.startBytes)} loaded at start; ` +
        `${build.inputs} inputs)`,
    );
  }
}
