/**
 * How near a tool call could come to the bare pipe (docs/benchmarks.md "Plugins"): the p50 of
 * round trips that each add one layer of work to `plugin_rpc_vs_pipe_ratio`'s pipe, over that
 * pipe's p50, measured in alternating blocks in one run:
 *
 * - `pipe`: the bench's bare pipe (plugin_bench.ts), the denominator.
 * - `frame`: a length-prefixed binary frame (id in a fixed header) out and a fixed one back,
 *   matched to its promise by id: no JSON and no text decoding in either process.
 * - `frame+json`: the same with the arguments JSON in the frame, parsed by the child, and the
 *   answer's content as raw UTF-8 decoded by the host: the least a tool call can do.
 * - `lines`: a minimal JSON-RPC line each way (JSON.parse and JSON.stringify on both sides).
 * - `sdk`: the example plugin on the real SDK, driven by that minimal host.
 * - `full`: the whole host path, as `plugin_rpc_p50_us` measures it.
 *
 * CPU is µs per round trip: the host process (node:process cpuUsage), then the child
 * (/proc/<pid>/stat, 10 ms ticks). `deno run -A tests/bench/plugin_floor.ts [blocks]`.
 */
// deno-lint-ignore-file no-console
import process from "node:process";
import { createHarness } from "../plugins/host/_support.ts";
import { quantile, round } from "./_figure.ts";
import { startPipe } from "./plugin_bench.ts";

const PER_BLOCK = 250;
const WARMUP = 300;
const HEADER = 8;
const SDK_IMPORT_MAP = new URL("../../plugins/sdk/import_map.json", import.meta.url).pathname;
const ECHO_PLUGIN = new URL("../fixtures/plugins/echo/main.ts", import.meta.url).pathname;

/** Framed child: `[u32 length][u32 id]` + payload; "raw" answers a fixed frame, "json" parses. */
const FRAME_CHILD = `const input = new Uint8Array(65536), out = new Uint8Array(65536);
const json = Deno.args[0] === "json", dec = new TextDecoder(), enc = new TextEncoder();
const fixed = enc.encode("echo: ping"), view = new DataView(input.buffer), outView = new DataView(out.buffer);
for (;;) {
  const n = await Deno.stdin.read(input);
  if (n === null) break;
  for (let at = 0; at + 8 <= n;) {
    const length = view.getUint32(at, true), id = view.getUint32(at + 4, true);
    let size = fixed.length;
    if (json) {
      const p = JSON.parse(dec.decode(input.subarray(at + 8, at + 8 + length)));
      size = enc.encodeInto("echo: " + p.args.text, out.subarray(8)).written;
    } else out.set(fixed, 8);
    outView.setUint32(0, size, true);
    outView.setUint32(4, id, true);
    Deno.stdout.writeSync(out.subarray(0, 8 + size));
    at += 8 + length;
  }
}`;

/** Minimal JSON-RPC child: one line in, one line out. */
const LINES_CHILD = `const input = new Uint8Array(65536), out = new Uint8Array(65536);
const dec = new TextDecoder(), enc = new TextEncoder();
for (;;) {
  const n = await Deno.stdin.read(input);
  if (n === null) break;
  const chunk = input.subarray(0, n);
  for (let at = 0, cut; (cut = chunk.indexOf(10, at)) >= 0; at = cut + 1) {
    const f = JSON.parse(dec.decode(chunk.subarray(at, cut)));
    const result = { content: "echo: " + f.params.args.text };
    const size = enc.encodeInto(JSON.stringify({ jsonrpc: "2.0", id: f.id, result }) + "\\n", out).written;
    Deno.stdout.writeSync(out.subarray(0, size));
  }
}`;

type Call = (args: { text: string }) => unknown;
interface Rung {
  call: Call;
  pid: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function spawn(args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--no-config", "--quiet", ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
}

const script = (source: string) => `data:application/javascript,${encodeURIComponent(source)}`;

/** Read `child`'s stdout into one reused buffer, handing each chunk (with what was left) on. */
function pump(child: Deno.ChildProcess, onData: (data: Uint8Array) => number): void {
  const reader = child.stdout.getReader({ mode: "byob" });
  let carry = new Uint8Array(0);
  (async () => {
    let buffer = new ArrayBuffer(64 * 1024);
    for (;;) {
      const { value, done } = await reader.read(new Uint8Array(buffer));
      if (done || !value) return;
      let data = value;
      if (carry.length > 0) {
        data = new Uint8Array(carry.length + value.length);
        data.set(carry);
        data.set(value, carry.length);
      }
      carry = data.slice(onData(data));
      buffer = value.buffer;
    }
  })().catch(() => {});
}

function framed(mode: "raw" | "json"): Rung {
  const child = spawn([script(FRAME_CHILD), mode]);
  const writer = child.stdin.getWriter();
  const pending = new Map<number, (value: unknown) => void>();
  let nextId = 1;
  pump(child, (data) => {
    const view = new DataView(data.buffer, data.byteOffset, data.length);
    let at = 0;
    while (at + HEADER <= data.length) {
      const length = view.getUint32(at, true);
      if (at + HEADER + length > data.length) break;
      const id = view.getUint32(at + 4, true);
      const body = data.subarray(at + HEADER, at + HEADER + length);
      const resolve = pending.get(id)!;
      pending.delete(id);
      resolve(mode === "json" ? { content: decoder.decode(body) } : null);
      at += HEADER + length;
    }
    return at;
  });
  const call: Call = (args) => {
    const id = nextId++;
    const { promise, resolve } = Promise.withResolvers<unknown>();
    pending.set(id, resolve);
    const frame = new Uint8Array(4096);
    const params = { name: "echo_say", args, turnId: "bench", callId: "c" };
    const size = encoder.encodeInto(JSON.stringify(params), frame.subarray(HEADER)).written;
    const view = new DataView(frame.buffer);
    view.setUint32(0, size, true);
    view.setUint32(4, id, true);
    writer.write(frame.subarray(0, HEADER + size)).catch(() => {});
    return promise;
  };
  return { call, pid: child.pid };
}

/** A minimal JSON-RPC host: answers the child's requests with null, matches its responses. */
function lines(child: Deno.ChildProcess): (method: string, params: unknown) => Promise<unknown> {
  const writer = child.stdin.getWriter();
  const pending = new Map<number, (value: unknown) => void>();
  let nextId = 1;
  const send = (frame: unknown) => {
    writer.write(encoder.encode(JSON.stringify(frame) + "\n")).catch(() => {});
  };
  pump(child, (data) => {
    let at = 0;
    for (let cut; (cut = data.indexOf(10, at)) >= 0; at = cut + 1) {
      const f = JSON.parse(decoder.decode(data.subarray(at, cut)));
      if (typeof f.method === "string") {
        if (f.id !== undefined) send({ jsonrpc: "2.0", id: f.id, result: null });
        continue;
      }
      pending.get(f.id)?.(f.result);
      pending.delete(f.id);
    }
    return at;
  });
  return (method, params) => {
    const id = nextId++;
    const { promise, resolve } = Promise.withResolvers<unknown>();
    pending.set(id, resolve);
    send({ jsonrpc: "2.0", id, method, params });
    return promise;
  };
}

function toolCall(request: (method: string, params: unknown) => Promise<unknown>): Call {
  return (args) => request("tool.call", { name: "echo_say", args, turnId: "bench", callId: "c" });
}

async function sdk(): Promise<Rung> {
  const child = spawn([`--import-map=${SDK_IMPORT_MAP}`, ECHO_PLUGIN]);
  const request = lines(child);
  const init = { protocolVersion: "1.1", kernelVersion: "bench", dataDir: "/tmp", settings: {} };
  await request("plugin.init", init);
  await request("plugin.start", {});
  return { call: toolCall(request), pid: child.pid };
}

function childTicks(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]!.split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

async function main(blocks: number): Promise<void> {
  await using h = await createHarness(["echo"]);
  const say = h.kernel.agent.tools.get("echo_say")!;
  const context = { signal: new AbortController().signal, turnId: "bench", callId: "c" };
  await using pipe = startPipe();
  const linesChild = spawn([script(LINES_CHILD)]);
  const rungs: Record<string, Rung> = {
    pipe: { call: () => pipe.ping(), pid: pipe.pid },
    frame: framed("raw"),
    "frame+json": framed("json"),
    lines: { call: toolCall(lines(linesChild)), pid: linesChild.pid },
    sdk: await sdk(),
    full: { call: (args) => say.handler(args, context), pid: h.registry.info("echo").pid! },
  };
  const args = { text: "ping" };
  const stats = Object.fromEntries(
    Object.keys(rungs).map((name) => [name, { samples: [] as number[], host: 0, child: 0 }]),
  );
  for (let i = 0; i < WARMUP; i++) for (const rung of Object.values(rungs)) await rung.call(args);
  for (let block = 0; block < blocks; block++) {
    for (const [name, rung] of Object.entries(rungs)) {
      const into = stats[name]!;
      const cpu = process.cpuUsage();
      const ticks = childTicks(rung.pid);
      for (let i = 0; i < PER_BLOCK; i++) {
        const start = performance.now();
        await rung.call(args);
        into.samples.push((performance.now() - start) * 1000);
      }
      const used = process.cpuUsage(cpu);
      into.host += used.user + used.system;
      into.child += (childTicks(rung.pid) - ticks) * 10_000;
    }
  }
  const calls = blocks * PER_BLOCK;
  const base = quantile(stats.pipe!.samples, 0.5);
  console.log(`load average ${Deno.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  for (const [name, { samples, host, child }] of Object.entries(stats)) {
    const p50 = quantile(samples, 0.5);
    const cpu = `${round(host / calls)} + ${round(child / calls)}`;
    console.log(`${name.padEnd(11)} p50 ${round(p50)} µs  ×${round(p50 / base, 2)}  cpu ${cpu} µs`);
  }
}

await main(Number(Deno.args[0] ?? 20));
// The framed and SDK children exit when their stdin closes with this process.
Deno.exit(0);
