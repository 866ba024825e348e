/**
 * `deno task bundle [--out DIR] [--json]`: the whole program as one JavaScript file,
 * `dist/homeagent.js`, that runs anywhere Deno 2 runs: `deno run -A dist/homeagent.js serve`
 * from any folder, with no node_modules, no deno.json and no network. Embedded: the web UI, the
 * Wasm modules (hot loops, jieba with its dictionary, wasmoon's glue), the Lua scripts, the
 * Lua plugins' worker and the plugin SDK that Deno plugins import. Left beside it: onnxruntime-web's
 * 14 MB wasm in `dist/onnxruntime/`, read only when an ONNX model is configured, and node-pty's
 * native binding for this platform in `dist/node_modules/`, loaded by the first terminal
 * (docs/operations.md).
 * Development tools (playwright, esbuild, assemblyscript, binaryen) fail the build if reached.
 */
// deno-lint-ignore-file no-console
import * as esbuild from "esbuild";
import { builtinModules } from "node:module";
import { dirname, join, relative } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";

const ROOT = join(dirname(new URL(import.meta.url).pathname), "..");

/** Packages the program must never carry: the build fails when one is imported. */
export const DEV_ONLY = ["playwright-core", "esbuild", "assemblyscript", "binaryen"];

/** The onnxruntime-web file a bundle reads from beside itself. */
export const ORT_WASM = "ort-wasm-simd-threaded.wasm";
/** jieba's wasm, which the bundle carries (memory/text/_jieba_wasm.ts reads it from here). */
const JIEBA_WASM = join(ROOT, "node_modules/jieba-wasm/pkg/web/jieba_rs_wasm_bg.wasm");

/**
 * `js` with every character past ASCII (and every control character but whitespace, which only
 * a literal can hold) written as a `\u` escape. esbuild's ASCII output leaves
 * regular expression literals alone (the Chinese patterns of memory/), and one character past
 * Latin-1 makes V8 keep the whole 13 MB source at two bytes a character (+13 MB resident).
 * An escape means the same in a string, a template, a comment and a regular expression (with
 * the u flag a pair of surrogate escapes is one code point); an identity escape (`\。`) loses
 * its backslash, as it means the character itself. Not so in a tagged template's raw text,
 * where the bundle has none of them; esbuild escapes identifiers itself.
 */
export function asciiOnly(js: string): string {
  return js.replace(/(\\*)([^ -~\t\n\r\v\f])/g, (_all, slashes: string, char: string) => {
    const kept = slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
    return `${kept}\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/** What buildBundle wrote. */
export interface BundleResult {
  /** The bundle file. */
  file: string;
  bytes: number;
  /** The files left beside it (onnxruntime-web's wasm). */
  sidecars: { file: string; bytes: number }[];
  /** Bytes of the bundle by origin: a package name, or the program's own top-level folder. */
  inputs: Record<string, number>;
}

/**
 * CommonJS packages (wasmoon, node-pty) expect `require`, `__filename` and `__dirname`, which an
 * ES module has not. A worker started from a blob: URL has no file of its own; it resolves from
 * a made-up one (it requires built-ins only).
 */
export const BANNER = `import { createRequire as __homeagentCreateRequire } from "node:module";
const __homeagentSelf = import.meta.url.startsWith("file:") ? import.meta.url : "file:///homeagent/worker.js";
const require = __homeagentCreateRequire(__homeagentSelf);
const __filename = new URL(__homeagentSelf).pathname;
const __dirname = new URL(".", __homeagentSelf).pathname;`;

/**
 * The worker starts from a blob: URL, which wasmoon would take for its file (it prefers
 * `location` to `__filename` inside a worker): hide `location` from the worker's module.
 */
const WORKER_BANNER = `${BANNER}\nconst location = undefined;`;

/**
 * onnxruntime-web's wasm, read from beside the bundle the first time an ONNX model loads (a
 * compiled binary carries it with --include). Not embedded: it is 14 MB, for an optional model.
 */
const ORT_LOADER = `const url = new URL("./onnxruntime/${ORT_WASM}", import.meta.url);
let bytes;
try {
  bytes = Deno.readFileSync(url);
} catch (error) {
  throw new Error(
    "onnxruntime-web's wasm is not beside this program (expected " + url.pathname + "): copy " +
      "the onnxruntime/ folder that deno task bundle wrote next to homeagent.js (docs/operations.md)",
    { cause: error },
  );
}
export default bytes;`;

/** Base64 to bytes: Uint8Array.fromBase64 where the runtime has it (Deno 2.5+), else atob. */
const FROM_BASE64 =
  `(Uint8Array.fromBase64 ?? ((s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0))))`;

function encodeBase64(bytes: Uint8Array): string {
  return (bytes as Uint8Array & { toBase64(): string }).toBase64();
}

/** How the program and its worker are built (the same resolution, banner and output). */
export const PROGRAM_BUILD = {
  bundle: true,
  format: "esm",
  platform: "node",
  target: "es2022",
  conditions: ["deno", "import", "module"],
  external: ["node:*"],
  banner: { js: BANNER },
  minify: true,
  keepNames: true, // error classes name themselves after their constructor
  legalComments: "eof",
  metafile: true,
  write: false,
  logLevel: "silent",
} satisfies esbuild.BuildOptions;

/** Build dist/homeagent.js (or `outDir`/homeagent.js) and what stays beside it. */
export async function buildBundle(outDir = join(ROOT, "dist")): Promise<BundleResult> {
  try {
    const carried = {
      sdkBundle: await bundleSdk(),
      luaWorkerBundle: (await esbuild.build({
        ...PROGRAM_BUILD,
        entryPoints: [join(ROOT, "plugins/host/lua_worker.ts")],
        banner: { js: WORKER_BANNER },
        plugins: [programPlugin({})],
      })).outputFiles![0]!.text,
    };
    const result = await esbuild.build({
      ...PROGRAM_BUILD,
      entryPoints: [join(ROOT, "main.ts")],
      plugins: [programPlugin(carried)],
    });
    const contents = new TextEncoder().encode(asciiOnly(result.outputFiles![0]!.text));
    await Deno.mkdir(outDir, { recursive: true });
    const file = join(outDir, "homeagent.js");
    await Deno.writeFile(file, contents);
    return {
      file,
      bytes: contents.length,
      sidecars: await writeSidecars(outDir),
      inputs: byOrigin(Object.values(result.metafile!.outputs)[0]!.inputs),
    };
  } finally {
    await esbuild.stop();
  }
}

/**
 * onnxruntime's wasm, and node-pty's binding for this platform where the checkout has it (a
 * bundle's `require` looks in the node_modules/ beside it).
 */
async function writeSidecars(outDir: string): Promise<{ file: string; bytes: number }[]> {
  const copies: [string, string][] = [
    [join(ROOT, "node_modules/onnxruntime-web/dist", ORT_WASM), join("onnxruntime", ORT_WASM)],
  ];
  const pty = `@lydell/node-pty-${process.platform}-${process.arch}`;
  const packages = join(ROOT, "node_modules/.deno");
  for (const entry of await Array.fromAsync(Deno.readDir(packages))) {
    if (!entry.name.startsWith(`${pty.replace("/", "+")}@`)) continue;
    const from = join(packages, entry.name, "node_modules", pty);
    for (const name of ["package.json", "pty.node"]) {
      copies.push([join(from, name), join("node_modules", pty, name)]);
    }
  }
  const written = [];
  for (const [from, to] of copies) {
    const file = join(outDir, to);
    await Deno.mkdir(dirname(file), { recursive: true });
    await Deno.copyFile(from, file);
    written.push({ file, bytes: (await Deno.stat(file)).size });
  }
  return written;
}

/** The plugin SDK as one self-contained ES module (what `@homeagent/plugin-sdk` maps to). */
async function bundleSdk(): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [join(ROOT, "plugins/sdk/mod.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

/** Resolution the way deno.json maps it, plus what only a bundle does differently. */
function programPlugin(carried: Record<string, string>): esbuild.Plugin {
  return {
    name: "homeagent",
    async setup(build) {
      const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
      const local = Object.entries(config.imports as Record<string, string>)
        .filter(([name, target]) => name.startsWith("#") && target.startsWith("./"));
      for (const [name, target] of local) {
        const filter = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
        build.onResolve({ filter }, () => ({ path: join(ROOT, target) }));
      }
      build.onResolve({ filter: new RegExp(`^onnxruntime-web/${ORT_WASM}$`) }, () => ({
        path: ORT_WASM,
        namespace: "homeagent-ort",
      }));
      build.onLoad({ filter: /.*/, namespace: "homeagent-ort" }, () => ({
        contents: ORT_LOADER,
        loader: "js",
      }));
      // A module of its own for each wasm file: esbuild's bytes loader made a dynamically
      // imported one CommonJS, and turning a 4 MB Uint8Array into an ES module copies it one
      // index property at a time (minutes).
      build.onLoad({ filter: /\.wasm$/ }, async (args) => ({
        contents: `export default ${FROM_BASE64}(${
          JSON.stringify(encodeBase64(await Deno.readFile(args.path)))
        });`,
        loader: "js",
      }));
      // main.ts imports the daemon's folders with computed specifiers (so that Deno does not
      // load them for the guard); in the bundle they become literal imports esbuild follows.
      build.onLoad({ filter: /\/main\.ts$/ }, async (args) => {
        if (args.path !== join(ROOT, "main.ts")) return undefined;
        return { contents: literalDaemonImports(await Deno.readTextFile(args.path)), loader: "ts" };
      });
      // jieba's wasm, carried as base64 and decoded only when the segmenter first runs. The
      // literal is inside the function: V8 makes it a 5 MB string only when that runs.
      build.onLoad({ filter: /memory\/text\/_jieba_wasm\.ts$/ }, async () => ({
        contents: `export function jiebaWasmBytes() { return ${FROM_BASE64}(${
          JSON.stringify(encodeBase64(await Deno.readFile(JIEBA_WASM)))
        }); }`,
        loader: "js",
      }));
      build.onLoad({ filter: /plugins\/host\/bundled\.ts$/ }, () => ({
        contents: Object.entries(carried)
          .map(([name, text]) => `export function ${name}() { return ${JSON.stringify(text)}; }`)
          .join("\n"),
        loader: "js",
      }));
      nodeBuiltinsAndDevTools(build);
    },
  };
}

/**
 * Packages written for Node import its built-ins bare (wasmoon: `import("module")`); Deno
 * wants the `node:` prefix (deno compile refuses the bare name). A development tool fails the
 * build.
 */
export function nodeBuiltinsAndDevTools(build: esbuild.PluginBuild): void {
  const bare = builtinModules.filter((name) => !name.startsWith("node:"));
  const builtins = new RegExp(`^(${bare.join("|").replaceAll("/", "\\/")})$`);
  build.onResolve({ filter: builtins }, (args) => ({ path: `node:${args.path}`, external: true }));
  const dev = new RegExp(`^(${DEV_ONLY.join("|")})(/|$)`);
  build.onResolve({ filter: dev }, (args) => ({
    errors: [{ text: `"${args.path}" is a development tool; the program must not import it` }],
  }));
}

/** The call main.ts loads a folder's mod.ts with: `daemonModule<typeof import("./x/mod.ts")>("x")`. */
const DAEMON_MODULE =
  /daemonModule<\s*typeof import\("(\.\/[a-z]+\/mod\.ts)"\)\s*>\(\s*"[a-z]+",?\s*\)/g;

/** The call main.ts loads a module of every process with: `entryModule<typeof import("x")>("x")`. */
const ENTRY_MODULE = /entryModule<\s*typeof import\("([^"]+)"\)\s*>\(\s*"([^"]+)",?\s*\)/g;

/**
 * main.ts with each daemonModule call made a literal import() (still skipped by the guard), and
 * each entryModule call too. Throws when there is none, or one is left: the bundle would then
 * miss those modules.
 */
export function literalDaemonImports(source: string): string {
  let count = 0;
  let out = source.replace(DAEMON_MODULE, (_call, path: string) => {
    count++;
    return `(isGuard(Deno.args) ? Promise.resolve({}) : import(${JSON.stringify(path)}))`;
  });
  let entries = 0;
  out = out.replace(ENTRY_MODULE, (call, typed: string, path: string) => {
    if (typed !== path) throw new Error(`main.ts: ${call} names two modules`);
    entries++;
    return `import(${JSON.stringify(path)})`;
  });
  if (count === 0 || entries === 0 || /(daemon|entry)Module<\s*typeof/.test(out)) {
    throw new Error("main.ts: the daemonModule calls changed shape; update .ci/bundle.ts");
  }
  return out;
}

function byOrigin(inputs: Record<string, { bytesInOutput: number }>): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const [path, input] of Object.entries(inputs)) {
    const inPackage = /node_modules\/(?:\.deno\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/
      .exec(path);
    const origin = inPackage?.[1] ?? relative(ROOT, join(ROOT, path)).split("/")[0]!;
    sizes[origin] = (sizes[origin] ?? 0) + input.bytesInOutput;
  }
  return Object.fromEntries(Object.entries(sizes).sort((a, b) => b[1] - a[1]));
}

/** `1234567` as `1.23 MB`. */
export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(2)} MB`;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { out: { type: "string" }, json: { type: "boolean" } },
  });
  const result = await buildBundle(values.out);
  if (values.json) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`wrote ${result.file} (${megabytes(result.bytes)})`);
    for (const side of result.sidecars) {
      console.log(`wrote ${side.file} (${megabytes(side.bytes)})`);
    }
    const top = Object.entries(result.inputs).slice(0, 8);
    console.log(`largest parts: ${top.map(([k, v]) => `${k} ${megabytes(v)}`).join(", ")}`);
  }
}
