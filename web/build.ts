/**
 * `deno task build:web`: bundle the browser UI (web/ui/app.ts) with esbuild into
 * web/ui/dist/app.js, which the server embeds. `--check` fails when the committed bundle is stale.
 */
// deno-lint-ignore-file no-console
import * as esbuild from "esbuild";

const root = new URL("./ui/", import.meta.url);
const out = new URL("dist/app.js", root);

async function bundle(): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [new URL("app.ts", root).pathname],
    bundle: true,
    format: "esm",
    target: ["es2022"],
    minify: true,
    write: false,
    legalComments: "none",
    logLevel: "silent",
  });
  await esbuild.stop();
  return result.outputFiles[0]!.text;
}

const check = Deno.args.includes("--check");
console.log("bundling web/ui/app.ts with esbuild");
const text = await bundle();
if (check) {
  const committed = await Deno.readTextFile(out).catch(() => "");
  if (committed !== text) {
    console.error(
      "web/ui/dist/app.js differs from a fresh build; rebuild with `deno task build:web`",
    );
    Deno.exit(1);
  }
  console.log(`web/ui/dist/app.js is up to date (${text.length} bytes)`);
} else {
  await Deno.mkdir(new URL("dist/", root), { recursive: true });
  await Deno.writeTextFile(out, text);
  console.log(`wrote web/ui/dist/app.js (${text.length} bytes)`);
}
