/**
 * Scheduler figures.
 *
 * `interrupt_abort_p50_ms` / `interrupt_abort_p99_ms`: an interrupt is injected while a plain
 * turn streams from a loopback OpenAI-compatible server through the real ProviderManager and
 * HTTP client; measured from the inject call to the moment the server sees the connection
 * closed (EOF on its socket, timestamped in the same process).
 *
 * `scheduler_overhead_us`: 10,000 inputs queued at once into an EventLoop whose turns finish
 * immediately; the time per input of admission, preemption checks, dispatch, finish and reply.
 */
import {
  EventBus,
  EventLoop,
  type Input,
  type PriorityLevel,
  Scheduler,
  silentLogger,
} from "../../core/mod.ts";
import { systemClock } from "../../adapters/mod.ts";
import { benchAgent } from "./_agent.ts";
import { startLoopbackServer } from "../fixtures/fake_http.ts";
import { type Figure, quantile, round } from "./_figure.ts";

const WARMUP = 50;
const SAMPLES = 1000;
const QUEUED = 10_000;

const base = { id: "b", object: "chat.completion.chunk", created: 0, model: "bench" };
const sse = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const delta = (content: string) => sse({ ...base, choices: [{ index: 0, delta: { content } }] });
const QUICK = delta("ok") +
  sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) + "data: [DONE]\n\n";

/** A loopback server: a "long …" input's first request streams one chunk and stalls. */
function startAbortServer() {
  let streaming = Promise.withResolvers<void>();
  let closed = Promise.withResolvers<number>();
  const seen = new Set<string>();
  const server = startLoopbackServer(async (exchange) => {
    const body = JSON.parse(exchange.request.body) as { messages: { content: string }[] };
    const text = String(body.messages[1]?.content);
    await exchange.head(200, { "content-type": "text/event-stream" });
    if (!text.startsWith("long") || seen.has(text)) { // the resumed turn's retry answers at once
      await exchange.write(QUICK);
      return exchange.end();
    }
    seen.add(text);
    await exchange.write(delta("Once upon a time"));
    streaming.resolve();
    await new Promise((resolve) => exchange.signal.addEventListener("abort", resolve));
  }, { onAbort: () => closed.resolve(performance.now()) });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    /** Arm for the next long request: resolves when it streams, and when its socket closes. */
    arm() {
      streaming = Promise.withResolvers<void>();
      closed = Promise.withResolvers<number>();
      return { streaming: streaming.promise, closed: closed.promise };
    },
    close: () => server.close(),
  };
}

async function measureAbort(): Promise<Record<string, Figure>> {
  const server = startAbortServer();
  using bench = benchAgent(server.url);
  const agent = bench.agent;
  const samples: number[] = [];
  try {
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const { streaming, closed } = server.arm();
      const story = agent.injectInputSync("bench", `long story ${i}`);
      await streaming;
      await new Promise((r) => setTimeout(r, 1)); // let the client read the first chunk
      const t0 = performance.now();
      agent.injectInterrupt("timer", `ping ${i}`, { priority: 1 });
      const t1 = await closed;
      const reply = await story;
      if (reply.status !== "ok") throw new Error(`Bench turn failed: ${reply.text}`);
      if (i >= WARMUP) samples.push(t1 - t0);
    }
  } finally {
    await agent.close();
    await server.close();
  }
  return {
    interrupt_abort_p50_ms: { value: round(quantile(samples, 0.5), 3), unit: "ms" },
    interrupt_abort_p99_ms: { value: round(quantile(samples, 0.99), 3), unit: "ms" },
  };
}

async function measureOverhead(): Promise<Figure> {
  const runs: number[] = [];
  for (let run = 0; run < 12; run++) {
    let delivered = 0;
    const loop = new EventLoop({
      clock: systemClock,
      logger: silentLogger,
      events: new EventBus({ logger: silentLogger }),
      scheduler: new Scheduler({ clock: systemClock, capacity: QUEUED }),
      run: (input) =>
        Promise.resolve({ inputId: input.id, channel: input.channel, text: "", status: "ok" }),
      deliver: () => void delivered++,
    });
    const t0 = performance.now();
    for (let i = 0; i < QUEUED; i++) {
      const level = (i % 10 === 0 ? 1 + (i % 4) : 0) as PriorityLevel;
      loop.submit(benchInput(i, level), level);
    }
    await loop.whenIdle();
    const elapsed = performance.now() - t0;
    if (delivered !== QUEUED) throw new Error(`Delivered ${delivered} of ${QUEUED}`);
    if (run >= 2) runs.push((elapsed * 1000) / QUEUED);
  }
  return { value: round(quantile(runs, 0.5), 2), unit: "us" };
}

function benchInput(i: number, level: PriorityLevel): Input {
  return {
    id: `b${i}`,
    text: "x",
    source: `s${i % 10}`,
    channel: "bench",
    priority: level,
    interrupt: level > 0,
    receivedAt: 0,
    meta: {},
  };
}

/** Figures of this module. */
export const figures = {
  "interrupt_abort_p50_ms": measureAbort,
  "interrupt_abort_p99_ms": measureAbort,
  "scheduler_overhead_us": measureOverhead,
};
