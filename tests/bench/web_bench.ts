/**
 * Web figures: SSE added latency and fan-out with 100 connected clients (the page's size and
 * time to interactive are in web_page_bench.ts).
 */
import { createApp, EventHub } from "../../web/mod.ts";
import { systemClock } from "../../adapters/mod.ts";
import { fakeWeb, TOKEN } from "../web/_deps.ts";
import { type Figure, quantile, round } from "./_figure.ts";

const CLIENTS = Number(Deno.env.get("WEB_BENCH_CLIENTS") ?? 100);
/** Gap between paced events (a streaming reply publishes a delta every few ms). */
const PACE_MS = Number(Deno.env.get("WEB_BENCH_PACE_MS") ?? 5);

/** An app on a real port with a hub the bench publishes into. */
function serve() {
  const fake = fakeWeb();
  const hub = new EventHub({ clock: systemClock, clientBuffer: 10_000 });
  const app = createApp({ ...fake.deps, clock: systemClock }, { hub });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  return { hub, base: `http://127.0.0.1:${server.addr.port}`, server };
}

/** One SSE client that hands each content_delta's text to `onData`; resolves once connected. */
async function connect(base: string, onData: (text: string) => void, signal: AbortSignal) {
  const response = await fetch(`${base}/api/v1/chat/events`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const ready = Promise.withResolvers<void>();
  const done = (async () => {
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let at: number;
        while ((at = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          if (frame.startsWith("event: hello")) ready.resolve();
          else if (frame.startsWith("event: content_delta")) {
            onData((JSON.parse(frame.slice(frame.indexOf("data: ") + 6)) as { text: string }).text);
          }
        }
      }
    } catch {
      // aborted at the end of the run
    }
  })();
  await ready.promise;
  return { done }; // not the bare promise: an async function would wait for it
}

async function sseFigures(): Promise<Record<string, Figure>> {
  const { hub, base, server } = serve();
  const abort = new AbortController();
  const latencies: number[] = [];
  let received = 0;
  let target = 0;
  let reached = Promise.withResolvers<void>();
  const onData = (text: string) => {
    const sent = Number(text);
    if (sent > 0) latencies.push(performance.now() - sent);
    if (++received === target) reached.resolve();
  };
  const readers = await Promise.all(
    Array.from({ length: CLIENTS }, () => connect(base, onData, abort.signal)),
  );
  const publish = (text: string) => hub.publish({ type: "content_delta", turnId: "bench", text });

  // Latency: one event every PACE_MS, as a streaming reply would publish them.
  const paced = 300;
  target = paced * CLIENTS;
  for (let i = 0; i < paced; i++) {
    publish(String(performance.now()));
    await new Promise((r) => setTimeout(r, PACE_MS));
  }
  await reached.promise;
  const warm = latencies.slice(CLIENTS * 20); // skip the first 20 events (warm-up)

  // Throughput: a burst of events, until every client has every one of them.
  const burst = 2000;
  received = 0;
  target = burst * CLIENTS;
  reached = Promise.withResolvers<void>();
  const started = performance.now();
  for (let i = 0; i < burst; i++) publish("0");
  await reached.promise;
  const seconds = (performance.now() - started) / 1000;

  abort.abort();
  hub.close();
  await Promise.all(readers.map((r) => r.done));
  await server.shutdown();
  return {
    sse_added_latency_p50_ms: { value: round(quantile(warm, 0.5), 2), unit: "ms" },
    sse_added_latency_p99_ms: { value: round(quantile(warm, 0.99), 2), unit: "ms" },
    sse_events_per_s_100: { value: Math.round(burst / seconds), unit: "events/s to each of 100" },
    sse_deliveries_per_s: { value: Math.round((burst * CLIENTS) / seconds), unit: "deliveries/s" },
  };
}

/** The figures of this module. */
export const figures = {
  "sse_added_latency_p50_ms": sseFigures,
  "sse_added_latency_p99_ms": sseFigures,
  "sse_events_per_s_100": sseFigures,
  "sse_deliveries_per_s": sseFigures,
};
