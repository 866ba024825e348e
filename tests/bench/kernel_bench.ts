/**
 * Kernel figures: `turn_overhead_p50_us` / `turn_overhead_p99_us`, the time HomeAgent itself
 * spends on one turn with one tool round (two streamed LLM calls through the real OpenAI client
 * over loopback HTTP, one tool call, all stages), with the fake server's own handler time
 * subtracted. `turn_overhead_durable_p50_us` / `_p99_us`: the same turn over the daemon's
 * journaled context window (RelevanceContext over JsonContextStore in a temp folder, pruning at
 * 30 events); `context_commit_p50_us` / `_p99_us`: the part of it spent making the turn durable
 * (one journal append and fdatasync) before the reply goes out.
 */
import { join } from "node:path";
import { type ContextWindow, RelevanceContext, silentLogger } from "../../core/mod.ts";
import { systemClock } from "../../adapters/mod.ts";
import { JsonContextStore } from "../../memory/mod.ts";
import { createHashEmbedder } from "../../memory/embed/hash.ts";
import { benchAgent } from "./_agent.ts";
import { type Figure, quantile, round } from "./_figure.ts";

const WARMUP = 50;
const TURNS = 500;

function sse(chunks: unknown[]): string {
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
}

const base = { id: "b", object: "chat.completion.chunk", created: 0, model: "bench" };
const TOOL_ROUND = sse([
  {
    ...base,
    choices: [{
      index: 0,
      delta: {
        role: "assistant",
        tool_calls: [{
          index: 0,
          id: "call_1",
          type: "function",
          function: { name: "bench_echo", arguments: '{"text":"hi"}' },
        }],
      },
      finish_reason: null,
    }],
  },
  { ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
]);
const TEXT_ROUND = sse([
  { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "Done, " } }] },
  { ...base, choices: [{ index: 0, delta: { content: "the tool said hi." } }] },
  { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
]);

/** A minimal fake OpenAI server that accounts for its own handler time. */
function startBenchServer() {
  let serverTime = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const t0 = performance.now();
    const body = await req.json() as { messages: { role: string }[] };
    const text = body.messages.at(-1)?.role === "tool" ? TEXT_ROUND : TOOL_ROUND;
    const response = new Response(text, { headers: { "content-type": "text/event-stream" } });
    serverTime += performance.now() - t0;
    return response;
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    takeServerTime: () => {
      const t = serverTime;
      serverTime = 0;
      return t;
    },
    close: () => server.shutdown(),
  };
}

/** Per-turn overhead samples in µs, over `context` (the Agent's in-memory window if absent). */
async function turnSamples(context?: ContextWindow): Promise<number[]> {
  const server = startBenchServer();
  using bench = benchAgent(server.url, { context });
  const agent = bench.agent;
  agent.tools.register({
    name: "bench_echo",
    description: "echo",
    parameters: { type: "object", properties: { text: { type: "string" } } },
    handler: (args) => String(args.text),
  });
  const samples: number[] = [];
  try {
    for (let i = 0; i < WARMUP + TURNS; i++) {
      server.takeServerTime();
      const t0 = performance.now();
      const reply = await agent.injectInputSync("bench", `turn ${i}`);
      const elapsed = performance.now() - t0 - server.takeServerTime();
      if (reply.status !== "ok") throw new Error(`Bench turn failed: ${reply.text}`);
      if (i >= WARMUP) samples.push(elapsed * 1000);
    }
  } finally {
    await agent.close();
    await server.close();
  }
  return samples;
}

async function measure(): Promise<Record<string, Figure>> {
  const samples = await turnSamples();
  return {
    turn_overhead_p50_us: { value: round(quantile(samples, 0.5)), unit: "us" },
    turn_overhead_p99_us: { value: round(quantile(samples, 0.99)), unit: "us" },
  };
}

/** Times every `commit` of `context`: how long a reply waits for its turn to be durable. */
function timedCommits(context: RelevanceContext, into: number[]): ContextWindow {
  return {
    append: (event) => context.append(event),
    prune: (query, signal) => context.prune(query, signal),
    timeline: (budget, count) => context.timeline(budget, count),
    size: () => context.size(),
    async commit() {
      const t0 = performance.now();
      await context.commit();
      into.push((performance.now() - t0) * 1000);
    },
  };
}

async function measureDurable(): Promise<Record<string, Figure>> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-bench-context-" });
  try {
    // The daemon's window at its default size; the bench source is dropped rather than archived,
    // so a turn journals its two events and one prune record: one fdatasync per turn.
    const context = await RelevanceContext.load({
      clock: systemClock,
      logger: silentLogger,
      embedder: createHashEmbedder(),
      store: new JsonContextStore({ path: join(dir, "context.json"), logger: silentLogger }),
      archive: () => Promise.resolve(),
      topK: () => 30,
      unarchivedSources: ["bench"],
    });
    const commits: number[] = [];
    const samples = await turnSamples(timedCommits(context, commits));
    await context.flush();
    const measured = commits.slice(WARMUP);
    return {
      turn_overhead_durable_p50_us: { value: round(quantile(samples, 0.5)), unit: "us" },
      turn_overhead_durable_p99_us: { value: round(quantile(samples, 0.99)), unit: "us" },
      context_commit_p50_us: { value: round(quantile(measured, 0.5)), unit: "us" },
      context_commit_p99_us: { value: round(quantile(measured, 0.99)), unit: "us" },
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Figures of this module. */
export const figures = {
  "turn_overhead_p50_us": measure,
  "turn_overhead_p99_us": measure,
  "turn_overhead_durable_p50_us": measureDurable,
  "turn_overhead_durable_p99_us": measureDurable,
  "context_commit_p50_us": measureDurable,
  "context_commit_p99_us": measureDurable,
};
