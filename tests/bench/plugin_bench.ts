/**
 * Plugin figures, against the example `echo` subprocess plugin (tests/fixtures/plugins/echo)
 * running under its manifest's Deno permissions.
 *
 * `plugin_rpc_p50_us` / `plugin_rpc_p99_us`: one `echo_say` tool call at a time through the
 * registered tool's handler: kernel → JSON-RPC `tool.call` frame on the child's stdin → the
 * SDK answers on stdout → the promise resolves. 200 warm-up calls, then 5,000 samples.
 *
 * `plugin_rpc_vs_pipe_ratio`: that p50 over `plugin_pipe_rtt_p50_us`, the p50 of a bare pipe
 * round trip measured the same way in the same run: a Deno child that copies its stdin to its
 * stdout with the calls the SDK's stdio() makes, driven through a stdin writer and a BYOB stdout
 * reader as the host reads plugins, with a line the size of a `tool.call` frame. The two kinds
 * of sample are taken in alternating blocks, so both see the same load on the machine.
 *
 * `plugin_rpc_calls_per_s`: 8 concurrent callers, 20,000 calls in all.
 *
 * `plugin_restart_ms`: the child is killed (SIGKILL); from the kill to `echo_say` registered
 * again (restart backoff set to 0 for the measurement; the real first backoff is 1 s on top).
 */
import type { RegisteredTool } from "../../core/mod.ts";
import { createHarness } from "../plugins/host/_support.ts";
import { type Figure, quantile, round } from "./_figure.ts";

const WARMUP = 200;
const SAMPLES = 5000;
const CONCURRENT = 8;
const TOTAL = 20_000;
const RESTARTS = 10;
const BLOCKS = 20;

/** The bare pipe's child: copies stdin to stdout with the calls the SDK's stdio() uses. */
const ECHO_CHILD = `const buffer = new Uint8Array(65536);
for (;;) {
  const n = await Deno.stdin.read(buffer);
  if (n === null) break;
  const bytes = buffer.subarray(0, n);
  let written = 0;
  while (written < n) written += Deno.stdout.writeSync(bytes.subarray(written));
}`;

/** A bare stdin/stdout round trip to a child, through the stream API the host uses. */
export interface PipePing extends AsyncDisposable {
  ping(): Promise<void>;
  pid: number;
}

/** Start the bare pipe's child (plugin_floor.ts measures against it too). */
export function startPipe(): PipePing {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--no-config",
      "--quiet",
      `data:application/javascript,${encodeURIComponent(ECHO_CHILD)}`,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader({ mode: "byob" });
  let buffer = new ArrayBuffer(64 * 1024);
  // The size of a tool.call frame for echo_say, so both carry the same bytes.
  const line = new TextEncoder().encode(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tool.call",
      params: { name: "echo_say", args: { text: "ping" }, turnId: "bench", callId: "c" },
    }) + "\n",
  );
  return {
    pid: child.pid,
    async ping() {
      writer.write(line).catch(() => {});
      let seen = 0;
      while (seen < line.length) {
        const { value, done } = await reader.read(new Uint8Array(buffer));
        if (done || !value) throw new Error("the echo child exited");
        seen += value.length;
        buffer = value.buffer;
      }
    },
    async [Symbol.asyncDispose]() {
      await writer.close().catch(() => {});
      await reader.cancel().catch(() => {});
      await child.status;
    },
  };
}

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
  await using pipe = startPipe();
  for (let i = 0; i < WARMUP; i++) {
    await say.handler(args, context);
    await pipe.ping();
  }
  const samples: number[] = [];
  const pipeSamples: number[] = [];
  const time = async (fn: () => unknown, into: number[]) => {
    for (let i = 0; i < SAMPLES / BLOCKS; i++) {
      const start = performance.now();
      await fn();
      into.push((performance.now() - start) * 1000);
    }
  };
  for (let block = 0; block < BLOCKS; block++) {
    await time(() => say.handler(args, context), samples);
    await time(() => pipe.ping(), pipeSamples);
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
    plugin_pipe_rtt_p50_us: { value: round(quantile(pipeSamples, 0.5)), unit: "µs" },
    plugin_rpc_vs_pipe_ratio: {
      value: round(quantile(samples, 0.5) / quantile(pipeSamples, 0.5), 2),
      unit: "×",
    },
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
  "plugin_pipe_rtt_p50_us": rpc,
  "plugin_rpc_vs_pipe_ratio": rpc,
  "plugin_rpc_calls_per_s": rpc,
  "plugin_restart_ms": restart,
};
