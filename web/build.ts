/**
 * `deno task build:web`: bundle the browser UI with esbuild into web/ui/dist/, which the server
 * embeds. The page is one file: `index.html` is web/ui/index.html with the shell and the chat's
 * script (app.ts and all it imports) and web/ui/app.css minified into it, so the chat's first
 * frame waits for no request after the page. The later bundles are fetched by URL
 * (web/ui/_lazy.ts): `views.js` (every view but the chat) when one is first opened, `markdown.js`
 * (marked and DOMPurify) once the chat is up, `graph.js` (cytoscape) when a graph is first shown.
 * A module the page already runs (preact, the API client, the UI text, the chat's state) is not
 * bundled again into them: the page lists those modules on a global, and the later bundles read
 * them from it, so there is one preact and one set of signals. `bundles.js` lists every served
 * file for the server. `--check` fails when a committed file is stale.
 */
// deno-lint-ignore-file no-console
import * as esbuild from "esbuild";
import { relative } from "node:path";

const root = new URL("./ui/", import.meta.url);
const dist = new URL("dist/", root);

/** Later bundle name → entry point; the page imports them by URL (web/ui/_lazy.ts). */
const LATER: Readonly<Record<string, string>> = {
  views: "_other_views.ts",
  graph: "_graph_canvas.ts",
  markdown: "_markdown_render.ts",
};

/** Where the page lists its modules for the later bundles, by path from web/ui/. */
const REGISTRY = 'globalThis[Symbol.for("homeagent.modules")]';

/** Every file of dist/ by name, and its text. */
type Files = Map<string, string>;

const OPTIONS = {
  bundle: true,
  format: "esm",
  target: ["es2022"],
  minify: true,
  write: false,
  absWorkingDir: root.pathname.replace(/\/$/, ""),
  outdir: "dist",
  legalComments: "none",
  logLevel: "silent",
} as const satisfies esbuild.BuildOptions;

async function bundleAll(): Promise<Files> {
  const pageModules = await modulesOf("app.ts");
  const shared = new Set<string>();
  const later = await esbuild.build({
    ...OPTIONS,
    entryPoints: Object.fromEntries(
      Object.entries(LATER).map(([name, entry]) => [name, new URL(entry, root).pathname]),
    ),
    splitting: true,
    entryNames: "[name]",
    // The content hash in a chunk's name lets the server mark it immutable.
    chunkNames: "[name]-[hash]",
    plugins: [fromPage(pageModules, shared)],
  });
  const files: Files = new Map();
  for (const file of later.outputFiles) {
    files.set(file.path.slice(dist.pathname.length), file.text);
  }
  files.set("index.html", await pageHtml(await pageScript([...shared].sort())));
  files.set("bundles.js", bundleList([...files.keys()].filter((f) => f.endsWith(".js")).sort()));
  return files;
}

/** The paths from web/ui/ of every module `entry` bundles. */
async function modulesOf(entry: string): Promise<Set<string>> {
  const scan = await esbuild.build({
    ...OPTIONS,
    entryPoints: [new URL(entry, root).pathname],
    metafile: true,
  });
  return new Set(Object.keys(scan.metafile.inputs));
}

/**
 * An esbuild plugin: an import of a module the page runs (`pageModules`) becomes a read of the
 * page's registry; `used` collects which, so the page lists exactly those.
 */
function fromPage(pageModules: Set<string>, used: Set<string>): esbuild.Plugin {
  return {
    name: "from-page",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === "inner" || args.kind === "entry-point") return undefined;
        const found = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: "inner",
        });
        if (found.errors.length > 0) return { errors: found.errors };
        // As the metafile names inputs: from absWorkingDir (web/ui/), "../" and all.
        const input = relative(OPTIONS.absWorkingDir, found.path);
        if (!pageModules.has(input)) return { path: found.path };
        used.add(input);
        // ".cjs": CommonJS whatever the module's own extension (esbuild reads .mjs as ESM).
        return { path: `${input}.cjs`, namespace: "page" };
      });
      build.onLoad({ filter: /.*/, namespace: "page" }, (args) => {
        const key = registryKey(args.path.slice(0, -".cjs".length));
        // CommonJS, so each named import reads the page module's live binding by name.
        return {
          contents: `const m = ${REGISTRY}?.[${JSON.stringify(key)}];\n` +
            `if (!m) throw new Error("the page lists no ${key}");\n` +
            "module.exports = m;",
          loader: "js",
        };
      });
    },
  };
}

/** A module's name in the registry: its path from web/ui/, a package's from its own folder. */
function registryKey(input: string): string {
  const at = input.lastIndexOf("node_modules/");
  return at < 0 ? input : input.slice(at + "node_modules/".length);
}

/** The page's script: app.ts, after it the registry of the modules the later bundles read. */
async function pageScript(shared: string[]): Promise<string> {
  const imports = shared.map((input, i) =>
    `import * as m${i} from ${JSON.stringify(`./${input}`)};`
  );
  const entries = shared.map((input, i) => `${JSON.stringify(registryKey(input))}: m${i}`);
  const result = await esbuild.build({
    ...OPTIONS,
    stdin: {
      contents: [
        ...imports,
        'import "./app.ts";',
        `${REGISTRY} = Object.freeze({ ${entries.join(", ")} });`,
      ].join("\n"),
      resolveDir: root.pathname,
      sourcefile: "page.ts",
      loader: "ts",
    },
  });
  const text = result.outputFiles[0]!.text.trim();
  // Inside <script>, the HTML parser ends or changes the element at these, whatever the JS says.
  if (/<\/script|<!--/i.test(text)) throw new Error("the page's script contains </script or <!--");
  return text;
}

/** web/ui/index.html with the page's script and web/ui/app.css written in. */
async function pageHtml(script: string): Promise<string> {
  const html = await Deno.readTextFile(new URL("index.html", root));
  const source = await Deno.readTextFile(new URL("app.css", root));
  const css = (await esbuild.transform(source, { loader: "css", minify: true })).code.trim();
  if (/<\/style/i.test(css)) throw new Error("web/ui/app.css must not contain </style");
  return replaceOnce(
    replaceOnce(html, STYLESHEET, `<style>${css}</style>`),
    SCRIPT,
    `<script type="module">${script}</script>`,
  );
}

const STYLESHEET = '<link rel="stylesheet" href="/assets/app.css">';
const SCRIPT = '<script type="module" src="/assets/app.js"></script>';

function replaceOnce(html: string, placeholder: string, by: string): string {
  if (!html.includes(placeholder)) throw new Error(`web/ui/index.html has no ${placeholder}`);
  // A function, so no `$&` in the code is read as a replacement pattern.
  return html.replace(placeholder, () => by);
}

/**
 * The module the server imports the bundles' text from (web/_asset_texts.ts): built output like
 * the bundles it lists, so JavaScript, an asset of web/ui rather than a source file of it.
 */
function bundleList(names: string[]): string {
  const imports = names.map((name, i) => `import b${i} from "./${name}" with { type: "text" };`);
  const entries = names.map((name, i) => `  ${JSON.stringify(name)}: b${i},`);
  return [
    "// Written by web/build.ts (deno task build:web): every bundle of the page by file name.",
    ...imports,
    "",
    "/** File name → text. @type {Readonly<Record<string, string>>} */",
    "export const BUNDLES = {",
    ...entries,
    "};",
    "",
  ].join("\n");
}

/** Names of the files now in dist/. */
async function present(): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dist)) if (entry.isFile) names.push(entry.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names;
}

/** Write `files` to dist/ and remove what a previous build left there. */
async function write(files: Files): Promise<void> {
  await Deno.mkdir(dist, { recursive: true });
  for (const name of await present()) {
    if (!files.has(name)) await Deno.remove(new URL(name, dist));
  }
  for (const [name, text] of files) {
    await Deno.writeTextFile(new URL(name, dist), text);
    console.log(`wrote web/ui/dist/${name} (${text.length} bytes)`);
  }
}

/** The names of dist/ that differ from `files` (missing, changed or left over). */
async function stale(files: Files): Promise<string[]> {
  const differ: string[] = [];
  for (const [name, text] of files) {
    if (await Deno.readTextFile(new URL(name, dist)).catch(() => "") !== text) differ.push(name);
  }
  for (const name of await present()) if (!files.has(name)) differ.push(name);
  return differ;
}

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  let differ: string[] = [];
  try {
    console.log("bundling web/ui/ with esbuild");
    const files = await bundleAll();
    if (check) differ = await stale(files);
    else await write(files);
    if (check && differ.length === 0) {
      console.log(`web/ui/dist/ is up to date (${files.size} files)`);
    }
  } finally {
    await esbuild.stop();
  }
  if (differ.length > 0) {
    console.error(
      `web/ui/dist/ differs from a fresh build (${differ.join(", ")}); run deno task build:web`,
    );
    Deno.exit(1);
  }
}
