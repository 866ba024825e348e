/**
 * `deno task build:web`: bundle the browser UI with esbuild into web/ui/dist/, which the server
 * embeds. `app.js` is the page with the chat; every other view is a chunk of its own, fetched
 * when first opened, and the code they share with the page sits in shared chunks that the page
 * preloads (`index.html` here is web/ui/index.html with a `modulepreload` per chunk app.js
 * imports, so no chunk waits for app.js to arrive before it is asked for, and with web/ui/app.css
 * minified into it). `markdown.js` (marked and DOMPurify, fetched once the chat is up) and
 * `graph.js` (cytoscape, fetched when a graph is first shown) are bundles of their own. `bundles.js` lists every file for the
 * server. `--check` fails when a committed file is stale.
 */
// deno-lint-ignore-file no-console
import * as esbuild from "esbuild";

const root = new URL("./ui/", import.meta.url);
const dist = new URL("dist/", root);

/** Bundle name → entry point; the page imports graph.js and markdown.js by URL (web/ui/_lazy.ts). */
const ENTRIES: Readonly<Record<string, string>> = {
  app: "app.ts",
  graph: "_graph_canvas.ts",
  markdown: "_markdown_render.ts",
};

/** Every file of dist/ by name, and its text. */
type Files = Map<string, string>;

async function bundleAll(): Promise<Files> {
  const result = await esbuild.build({
    entryPoints: Object.fromEntries(
      Object.entries(ENTRIES).map(([name, entry]) => [name, new URL(entry, root).pathname]),
    ),
    bundle: true,
    splitting: true,
    format: "esm",
    target: ["es2022"],
    minify: true,
    write: false,
    absWorkingDir: root.pathname.replace(/\/$/, ""),
    outdir: "dist",
    entryNames: "[name]",
    // The content hash in a chunk's name lets the server mark it immutable.
    chunkNames: "[name]-[hash]",
    metafile: true,
    legalComments: "none",
    logLevel: "silent",
  });
  const files: Files = new Map();
  for (const file of result.outputFiles) {
    files.set(file.path.slice(dist.pathname.length), file.text);
  }
  files.set("index.html", await pageHtml(staticImports(result.metafile, "dist/app.js")));
  files.set("bundles.js", bundleList([...files.keys()].filter((f) => f.endsWith(".js")).sort()));
  return files;
}

/**
 * The chunks `output` imports statically, directly or through another chunk, by file name
 * (the metafile names outputs from absWorkingDir: "dist/app.js").
 */
function staticImports(metafile: esbuild.Metafile, output: string): string[] {
  const seen = new Set<string>();
  const visit = (path: string) => {
    const imports = metafile.outputs[path]?.imports;
    if (!imports) throw new Error(`esbuild made no ${path}`);
    for (const i of imports) {
      if (i.kind !== "import-statement" || seen.has(i.path)) continue;
      seen.add(i.path);
      visit(i.path);
    }
  };
  visit(output);
  return [...seen].map((path) => path.slice("dist/".length)).sort();
}

/**
 * web/ui/index.html with a `modulepreload` for each chunk app.js imports and the stylesheet
 * written in (~4 KiB gzipped): the first frame waits for no second request.
 */
async function pageHtml(preloads: string[]): Promise<string> {
  const html = await Deno.readTextFile(new URL("index.html", root));
  const links = preloads.map((file) => `    <link rel="modulepreload" href="/assets/${file}">\n`);
  const at = html.indexOf("  </head>");
  if (at < 0) throw new Error("web/ui/index.html has no </head>");
  return inlineStyles(html.slice(0, at) + links.join("") + html.slice(at));
}

const STYLESHEET = '<link rel="stylesheet" href="/assets/app.css">';

async function inlineStyles(html: string): Promise<string> {
  if (!html.includes(STYLESHEET)) throw new Error(`web/ui/index.html has no ${STYLESHEET}`);
  const source = await Deno.readTextFile(new URL("app.css", root));
  const css = (await esbuild.transform(source, { loader: "css", minify: true })).code.trim();
  if (/<\/style/i.test(css)) throw new Error("web/ui/app.css must not contain </style");
  return html.replace(STYLESHEET, () => `<style>${css}</style>`);
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
