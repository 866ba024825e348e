/**
 * Plugin figures, against the example `echo` subprocess plugin (tests/fixtures/plugins/echo)
 * running under its manifest's Deno permissions.
 *
 * `plugin_rpc_p50_us` / `plugin_rpc_p99_us`: one `echo_say` tool call at a time through the
 * registered tool's handler: kernel → JSON-RPC `tool.call` frame on the child's stdin → the
 * SDK answers on stdout → the promise resolves. 200 warm-up calls, then 5,000 samples.
 *
 * `plugin_rpc_calls_per_s`: 8 concurrent callers, 20,000 calls in all.
 *
 * `plugin_restart_ms`: the child is killed (SIGKILL); from the kill to `echo_say` registered
 * again (restart backoff set to 0 for the measurement; the real first backoff is 1 s on top).
 */
import type { RegisteredTool } from "../../core/mod.ts";
import { createHarness } from "../plugins/_support.ts";
import { type Figure, quantile, round } from "./_figure.ts";

const WARMUP = 200;
const SAMPLES = 5000;
const CONCURRENT = 8;
const TOTAL = 20_000;
const RESTARTS = 10;

function tool(h: Awaited<ReturnType<typeof createHarness>>): RegisteredTool {
  const found = h.kernel.agent.tools.get("echo_say");
  if (!found) throw new Error("echo_say is not registered");
  return found;
}

const context = { signal: new AbortController().signal, turnId: "bench", callId: "c" };

async function rpc(): Promise<Record<string, Figure>> {
  await using h = await createHarness(["echo"]);
  const say = tool(h);
  const args = { text: "ping" };
  for (let i = 0; i < WARMUP; i++) await say.handler(args, context);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    await say.handler(args, context);
    samples.push((performance.now() - start) * 1000);
  }
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENT }, async () => {
    while (next++ < TOTAL) await say.handler(args, context);
  }));
  const seconds = (performance.now() - started) / 1000;
  return {
    plugin_rpc_p50_us: { value: round(quantile(samples, 0.5)), unit: "µs" },
    plugin_rpc_p99_us: { value: round(quantile(samples, 0.99)), unit: "µs" },
    plugin_rpc_calls_per_s: { value: Math.round(TOTAL / seconds), unit: "calls/s" },
  };
}

async function restart(): Promise<Figure> {
  await using h = await createHarness(["echo"], { backoffMs: [0], maxCrashes: 1000 });
  const times: number[] = [];
  for (let i = 0; i < RESTARTS; i++) {
    const pid = h.registry.info("echo").pid!;
    const start = performance.now();
    Deno.kill(pid, "SIGKILL");
    const back = () => {
      const info = h.registry.info("echo");
      return info.state === "running" && info.pid !== undefined && info.pid !== pid &&
        h.kernel.agent.tools.get("echo_say") !== undefined;
    };
    while (!back()) await new Promise((r) => setTimeout(r, 1));
    times.push(performance.now() - start);
  }
  return { value: round(quantile(times, 0.5)), unit: "ms (median)" };
}

/** The plugin figures. */
export const figures: Record<string, () => Promise<Figure | Record<string, Figure>>> = {
  "plugin_rpc_p50_us": rpc,
  "plugin_rpc_p99_us": rpc,
  "plugin_rpc_calls_per_s": rpc,
  "plugin_restart_ms": restart,
};
