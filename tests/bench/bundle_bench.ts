/**
 * The bundled deployment's figures (docs/benchmarks.md): `startup_ms_bundle` and
 * `idle_rss_mb_bundle` measure what `startup_ms` and `idle_rss_mb` do, but for
 * `deno run -A homeagent.js serve` started from an empty folder, the way a small home server
 * runs the one-file build. The bundle is built fresh for each run (`deno task bundle --out` a
 * temporary folder, a few seconds), so the figure never describes a stale dist/homeagent.js.
 */
import { join } from "node:path";
import { type Figure, round } from "./_figure.ts";
import { measureServe } from "./daemon_bench.ts";

const BUNDLER = new URL("../../.ci/bundle.ts", import.meta.url).pathname;

/** Build the bundle into `dir`; its file's path. */
async function buildBundle(dir: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", BUNDLER, "--out", dir],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`deno task bundle failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return join(dir, "homeagent.js");
}

async function measure(): Promise<Record<string, Figure>> {
  const dist = await Deno.makeTempDir({ prefix: "homeagent-bench-dist-" });
  const empty = await Deno.makeTempDir({ prefix: "homeagent-bench-cwd-" });
  try {
    const bundle = await buildBundle(dist);
    const serve = await measureServe({
      args: ["run", "--allow-all", "--quiet", bundle],
      cwd: empty,
    });
    return {
      startup_ms_bundle: { value: round(serve.startupMs), unit: "ms" },
      idle_rss_mb_bundle: { value: round(serve.agentRssMb), unit: "MB" },
    };
  } finally {
    await Deno.remove(dist, { recursive: true });
    await Deno.remove(empty, { recursive: true });
  }
}

/** Figures of this module. */
export const figures = {
  "startup_ms_bundle": measure,
  "idle_rss_mb_bundle": measure,
};
