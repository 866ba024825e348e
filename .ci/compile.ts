/**
 * `deno task compile`: `dist/homeagent`, one executable built from the bundle (.ci/bundle.ts),
 * so it carries only what the program runs: the bundle and onnxruntime's wasm, no node_modules
 * (no playwright, esbuild, assemblyscript or binaryen). `deno compile` downloads `denort` for this
 * Deno version from dl.deno.land the first time (or takes DENORT_BIN); the inputs and the command
 * are printed first, so a machine without that access still shows what would be compiled.
 * Deno plugins of a compiled homeagent run on a `deno` found on the machine (docs/operations.md).
 */
// deno-lint-ignore-file no-console
import { join } from "node:path";
import { BUNDLE_FLAGS, DAEMON_PERMISSIONS } from "../plugins/mod.ts";
import { buildBundle, megabytes } from "./bundle.ts";

const dist = join(new URL("..", import.meta.url).pathname, "dist");
const bundle = await buildBundle(dist);
const output = join(dist, "homeagent");
const args = [
  "compile",
  ...BUNDLE_FLAGS,
  "--no-npm",
  "--no-remote",
  ...DAEMON_PERMISSIONS,
  ...bundle.sidecars.flatMap((side) => ["--include", side.file]),
  "--output",
  output,
  bundle.file,
];
const inputs = bundle.bytes + bundle.sidecars.reduce((sum, side) => sum + side.bytes, 0);
console.log(`bundle ${bundle.file} (${megabytes(bundle.bytes)})`);
for (const side of bundle.sidecars) console.log(`include ${side.file} (${megabytes(side.bytes)})`);
console.log(`compile inputs: ${megabytes(inputs)} plus denort`);
console.log(`deno ${args.join(" ")}`);
const compiled = await new Deno.Command(Deno.execPath(), { args }).spawn().status;
if (!compiled.success) {
  console.error(
    "error: deno compile failed. It needs denort for this Deno version: internet access to " +
      "dl.deno.land once, or DENORT_BIN set to a denort binary (the full deno does not work).",
  );
  Deno.exit(1);
}
console.log(`wrote ${output} (${megabytes((await Deno.stat(output)).size)})`);
