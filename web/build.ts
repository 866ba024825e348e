/**
 * `deno task build:web`: bundle the browser UI with esbuild into web/ui/dist/, which the server
 * embeds: app.js (the page), markdown.js (marked and DOMPurify, fetched at start but not waited
 * for) and graph.js (cytoscape and the memory graph's drawing, fetched when a graph is first
 * shown), so the first load parses a tenth of the code. `--check` fails when a committed bundle
 * is stale.
 */
// deno-lint-ignore-file no-console
import * as esbuild from "esbuild";

const root = new URL("./ui/", import.meta.url);

/** Entry point → bundle (names the server and tests/bench/web_bench.ts know). */
export const WEB_BUNDLES: Readonly<Record<string, string>> = {
  "app.ts": "app.js",
  "_graph_canvas.ts": "graph.js",
  "_markdown_render.ts": "markdown.js",
};

async function bundle(entry: string): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [new URL(entry, root).pathname],
    bundle: true,
    format: "esm",
    target: ["es2022"],
    minify: true,
    write: false,
    legalComments: "none",
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  let stale = false;
  try {
    for (const [entry, name] of Object.entries(WEB_BUNDLES)) {
      console.log(`bundling web/ui/${entry} with esbuild`);
      const text = await bundle(entry);
      const out = new URL(`dist/${name}`, root);
      if (!check) {
        await Deno.mkdir(new URL("dist/", root), { recursive: true });
        await Deno.writeTextFile(out, text);
        console.log(`wrote web/ui/dist/${name} (${text.length} bytes)`);
      } else if (await Deno.readTextFile(out).catch(() => "") !== text) {
        console.error(`web/ui/dist/${name} differs from a fresh build; run deno task build:web`);
        stale = true;
      } else console.log(`web/ui/dist/${name} is up to date (${text.length} bytes)`);
    }
  } finally {
    await esbuild.stop();
  }
  if (stale) Deno.exit(1);
}
