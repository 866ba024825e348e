/** Tool and LLM timings from the kernel's events, bounded, for healthcheck_perf. */
import type { Clock, KernelEvent } from "../../../core/mod.ts";

/** Samples kept per tool or source; names kept at most. */
const SAMPLES = 200;
const NAMES = 200;

interface Series {
  calls: number;
  failures: number;
  ms: number[];
  firstTokenMs: number[];
}

/** Records `tool_call` and `agent_llm_chain` events. */
export class PerfRecorder {
  #clock: Clock;
  #tools = new Map<string, Series>();
  #sources = new Map<string, Series>();
  #started = new Map<string, number>();
  #since: number;

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#since = clock.now();
  }

  /** Feed one kernel event. */
  record(event: KernelEvent): void {
    if (event.type === "tool_call") {
      const key = `${event.turnId}/${event.call.id}`;
      if (event.phase === "start") {
        if (this.#started.size >= 1000) this.#started.clear(); // lost ends must not pile up
        this.#started.set(key, this.#clock.monotonic());
        return;
      }
      const began = this.#started.get(key);
      this.#started.delete(key);
      const s = series(this.#tools, event.call.name);
      if (!s) return;
      s.calls++;
      if (event.ok === false) s.failures++;
      if (began !== undefined) push(s.ms, this.#clock.monotonic() - began);
    } else if (event.type === "agent_llm_chain") {
      const s = series(this.#sources, event.source);
      if (!s) return;
      s.calls++;
      push(s.ms, event.durationMs);
      if (event.firstTokenMs !== undefined) push(s.firstTokenMs, event.firstTokenMs);
    }
  }

  /** The figures as lines. */
  report(): string {
    const minutes = Math.round((this.#clock.now() - this.#since) / 60_000);
    const lines = [`Since ${minutes} min ago (newest ${SAMPLES} timings each):`];
    for (const [name, s] of this.#sources) {
      lines.push(
        `llm ${name}: ${s.calls} rounds, ${stats(s.ms)}` +
          (s.firstTokenMs.length ? `; first token ${stats(s.firstTokenMs)}` : ""),
      );
    }
    const tools = [...this.#tools].sort((a, b) => b[1].calls - a[1].calls);
    for (const [name, s] of tools) {
      lines.push(`tool ${name}: ${s.calls} calls, ${s.failures} failed, ${stats(s.ms)}`);
    }
    if (lines.length === 1) lines.push("no tool calls or LLM rounds yet");
    return lines.join("\n");
  }
}

function series(map: Map<string, Series>, name: string): Series | undefined {
  let s = map.get(name);
  if (!s) {
    if (map.size >= NAMES) return undefined;
    map.set(name, s = { calls: 0, failures: 0, ms: [], firstTokenMs: [] });
  }
  return s;
}

function push(list: number[], value: number): void {
  list.push(value);
  if (list.length > SAMPLES) list.shift();
}

function stats(ms: number[]): string {
  if (ms.length === 0) return "no timings";
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${Math.round(sorted.at(-1)!)} ms`;
}
