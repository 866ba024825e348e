/** Daemon figures: `startup_ms` (process start → socket accepting) and `idle_rss_mb`. */
import { join } from "node:path";
import { type Figure, quantile, round } from "./_figure.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const RUNS = 5;

/** Start `serve` in a fresh home; resolves when its socket accepts a connection. */
export async function startDaemon(home: string, env: Record<string, string> = {}) {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, "serve", "--home", home, "--port", "0"],
    env: { HOMEAGENT_LOG_LEVEL: "warn", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const socket = join(home, "run", "homed.sock");
  const deadline = started + 30_000;
  for (;;) {
    try {
      const conn = await Deno.connect({ transport: "unix", path: socket });
      conn.close();
      break;
    } catch {
      if (performance.now() > deadline) {
        child.kill("SIGKILL");
        await child.output();
        throw new Error("The daemon did not open its socket within 30 s");
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  return { child, startupMs: performance.now() - started };
}

/** Stop a daemon started by startDaemon and wait for it to exit. */
export async function stopDaemon(child: Deno.ChildProcess): Promise<void> {
  child.kill("SIGTERM");
  await child.output();
}

function rssMb(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

async function measure(): Promise<Record<string, Figure>> {
  const startups: number[] = [];
  let rss = NaN;
  for (let i = 0; i < RUNS; i++) {
    const home = await Deno.makeTempDir({ prefix: "homeagent-bench-" });
    try {
      const { child, startupMs } = await startDaemon(home);
      startups.push(startupMs);
      if (i === RUNS - 1) {
        await new Promise((r) => setTimeout(r, 2000)); // let start-up garbage settle
        rss = rssMb(child.pid);
      }
      await stopDaemon(child);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  }
  return {
    startup_ms: { value: round(quantile(startups, 0.5)), unit: "ms" },
    idle_rss_mb: { value: round(rss), unit: "MB" },
  };
}

/** Figures of this module. */
export const figures = { "startup_ms": measure, "idle_rss_mb": measure };
