/**
 * An in-memory LlmCaller for scheduler tests: answers are scripted per request, a call can be
 * held open until the test releases it, and an abort rejects the call at once (as the real
 * ProviderManager does), recorded in `aborts`.
 *
 * ```ts
 * const llm = new ScriptedLlm({ respond: (req) => req.messages.at(-1)!.content === "slow" ? "hold" : { text: "ok" } });
 * llm.calls[0].release({ text: "done" });  // finish a held call
 * await llm.waitForCalls(2);
 * ```
 */
import {
  AbortedError,
  type ChatRequest,
  type ChatResponse,
  estimateTokens,
  type LlmCaller,
  type LlmCallListener,
  type LlmCallResult,
  type RequestBuilder,
  type ToolCall,
} from "../../core/mod.ts";

/** What the fake model answers. */
export interface ScriptedAnswer {
  text?: string;
  toolCalls?: ToolCall[];
}

/** One recorded call. */
export interface ScriptedCall {
  readonly index: number;
  readonly request: ChatRequest;
  /** How it ended so far: pending, answered, or aborted by its signal. */
  outcome: "pending" | "answered" | "aborted";
  /** Answer a held call (no-op once it ended). */
  release(answer?: ScriptedAnswer): void;
}

/** Decides the answer of a call, or "hold" to keep it open until released or aborted. */
export type Respond = (request: ChatRequest, index: number) => ScriptedAnswer | "hold";

/** Options of a ScriptedLlm. */
export interface ScriptedLlmOptions {
  /** Default: answer "ok" at once. */
  respond?: Respond;
  /** Microtask turns an answered call takes (lets other work interleave); default 1. */
  latency?: number;
  contextTokens?: number;
}

/** A scripted in-memory model implementing the kernel's LlmCaller. */
export class ScriptedLlm implements LlmCaller {
  /** Every call, in order. */
  readonly calls: ScriptedCall[] = [];
  #respond: Respond;
  #latency: number;
  #contextTokens: number;
  #waiters = new Set<() => void>();

  constructor(options: ScriptedLlmOptions = {}) {
    this.#respond = options.respond ?? (() => ({ text: "ok" }));
    this.#latency = options.latency ?? 1;
    this.#contextTokens = options.contextTokens ?? 32_000;
  }

  /** Calls whose signal aborted them. */
  get aborts(): number {
    return this.calls.filter((c) => c.outcome === "aborted").length;
  }

  /** Calls still open. */
  get open(): ScriptedCall[] {
    return this.calls.filter((c) => c.outcome === "pending");
  }

  /** The window requests are built for (`contextTokens`, default 32,000). */
  maxContextTokens(): number {
    return this.#contextTokens;
  }

  call(
    plan: ChatRequest | RequestBuilder,
    options: { signal?: AbortSignal; listener?: LlmCallListener } = {},
  ): Promise<LlmCallResult> {
    const { signal } = options;
    const window = this.#contextTokens;
    const request = typeof plan === "function"
      ? plan({
        source: "scripted",
        window,
        targetTokens: Math.floor(window * 0.8),
        count: estimateTokens,
      })
      : plan;
    const index = this.calls.length;
    const decided = this.#respond(request, index);
    const { promise, resolve, reject } = Promise.withResolvers<LlmCallResult>();
    const onAbort = () => finish("aborted");
    const finish = (outcome: "answered" | "aborted", answer: ScriptedAnswer = {}) => {
      if (call.outcome !== "pending") return;
      call.outcome = outcome;
      signal?.removeEventListener("abort", onAbort);
      if (outcome === "aborted") {
        reject(new AbortedError("LLM call aborted", { cause: signal?.reason }));
      } else resolve(result(answer));
      this.#notify();
    };
    const call: ScriptedCall = {
      index,
      request,
      outcome: "pending",
      release: (answer) => finish("answered", answer),
    };
    this.calls.push(call);
    this.#notify();
    if (signal?.aborted) finish("aborted");
    signal?.addEventListener("abort", onAbort, { once: true });
    if (decided !== "hold") {
      const text = decided.text ?? "";
      if (text !== "") options.listener?.onEvent?.("scripted", { type: "text_delta", text });
      void this.#after(this.#latency).then(() => finish("answered", decided));
    }
    return promise;
  }

  /** Resolve once at least `count` calls were made. */
  waitForCalls(count: number): Promise<void> {
    return this.#until(() => this.calls.length >= count);
  }

  /** Resolve once at least `count` calls were aborted. */
  waitForAborts(count: number): Promise<void> {
    return this.#until(() => this.aborts >= count);
  }

  #until(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (!done()) return;
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
    });
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  async #after(turns: number): Promise<void> {
    for (let i = 0; i < turns; i++) await Promise.resolve();
  }
}

function result(answer: ScriptedAnswer): LlmCallResult {
  const response: ChatResponse = {
    text: answer.text ?? "",
    toolCalls: answer.toolCalls ?? [],
    finishReason: (answer.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop",
    model: "scripted",
  };
  return { response, source: "scripted", model: "scripted", durationMs: 0 };
}
