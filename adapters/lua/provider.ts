/**
 * LuaProvider: a Provider whose wire format is translated by an adapter script. The
 * TypeScript side does HTTP (adapters/_http.ts) and parses the unified format — OpenAI
 * chat-completions JSON — with the native client's parser; the script only transforms.
 */
import { createParser } from "eventsource-parser";
import {
  type CallOptions,
  type ChatRequest,
  type ChatResponse,
  type Provider,
  ProviderError,
  type SourceConfig,
  type StreamEvent,
} from "../../core/mod.ts";
import { clientTarget, type NativeClientOptions, windowOf } from "../_client.ts";
import {
  chatCall,
  endpoint,
  type HttpExchange,
  type HttpTarget,
  JsonText,
  SourceFailures,
  streamCall,
} from "../_http.ts";
import { openaiBody, OpenAIStreamState, parseCompletion } from "../_openai_wire.ts";
import { eventsOf } from "../_stream_assembler.ts";
import { LuaScriptError, type LuaVm } from "./vm.ts";

/** Hands out the current VM of an adapter for one source, rebuilt when its script changed. */
export interface LuaVmLease {
  vm: LuaVm;
  /** Call once the request is over; a VM replaced meanwhile is closed then. */
  release(): void;
}

/** Options of LuaProvider. */
export interface LuaProviderOptions extends NativeClientOptions {
  source: SourceConfig;
  /** Adapter script name, e.g. "anthropic". */
  adapter: string;
  /** The current VM of this source's adapter (reloading the script when its file changed). */
  lease: () => Promise<LuaVmLease>;
}

let streamIds = 0;

/** A Provider over any HTTP API that a Lua adapter script translates. */
export class LuaProvider implements Provider {
  readonly name: string;
  readonly model: string;
  readonly adapter: string;
  #source: SourceConfig;
  #options: LuaProviderOptions;
  #window: () => number;
  #configJson: string;

  constructor(options: LuaProviderOptions) {
    this.name = options.source.name;
    this.model = options.source.model;
    this.adapter = options.adapter;
    this.#source = options.source;
    this.#options = options;
    this.#window = windowOf(options.source, options);
    this.#configJson = configJson(options.source);
  }

  /** The declared window, else the model table's. */
  maxContextTokens(): number {
    return this.#window();
  }

  /** One non-streamed call; rejects with ProviderError (a script failure is kind "bad_request"). */
  async chat(request: ChatRequest, options: CallOptions = {}): Promise<ChatResponse> {
    const lease = await this.#lease();
    try {
      const { target, body } = await this.#prepare(lease.vm, request, false);
      return await chatCall(target, body, (text, failures) => {
        const unified = this.#guard(() => lease.vm.transformResponse(text), failures);
        return parseCompletion(unified, this.model, failures);
      }, options.signal);
    } catch (error) {
      throw this.#asError(error);
    } finally {
      lease.release();
    }
  }

  /** One streamed call; ends with exactly one `done` or `error` event. */
  async *stream(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<StreamEvent> {
    let lease: LuaVmLease;
    let prepared: { target: HttpTarget; body: JsonText };
    try {
      lease = await this.#lease();
    } catch (error) {
      yield { type: "error", error: this.#asError(error) };
      return;
    }
    try {
      try {
        prepared = await this.#prepare(lease.vm, request, true);
      } catch (error) {
        yield { type: "error", error: this.#asError(error) };
        return;
      }
      const vm = lease.vm;
      const read = (exchange: HttpExchange) => this.#read(vm, exchange);
      yield* streamCall(prepared.target, prepared.body, read, options.signal);
    } finally {
      lease.release();
    }
  }

  async #lease(): Promise<LuaVmLease> {
    return await this.#options.lease();
  }

  /** The unified request through transform_request, and the URL and headers of the script. */
  async #prepare(vm: LuaVm, request: ChatRequest, stream: boolean) {
    const unified = JSON.stringify(openaiBody(this.model, request, stream));
    const body = vm.exports.transformRequest ? await vm.transformRequest(unified) : unified;
    const path = vm.exports.endpoint ? vm.endpoint(this.#configJson, stream) : "/chat/completions";
    const base = clientTarget(this.#source, path, this.#options);
    const headers = vm.exports.headers ? await vm.headers(this.#configJson) : base.headers;
    const target: HttpTarget = { ...base, url: endpoint(this.#source.baseUrl, path), headers };
    return { target, body: new JsonText(body) };
  }

  async *#read(vm: LuaVm, exchange: HttpExchange): AsyncGenerator<StreamEvent, ChatResponse> {
    const failures = exchange.failures;
    const type = exchange.response.headers.get("content-type") ?? "";
    if (type.includes("application/json")) {
      // An answer in one piece (a server that ignores `stream`, or an error object).
      const text = await exchange.text();
      const unified = this.#guard(() => vm.transformResponse(text), failures);
      const response = parseCompletion(unified, this.model, failures);
      yield* eventsOf(response);
      return response;
    }
    const id = ++streamIds;
    const state = new OpenAIStreamState(this.model, failures);
    const lines: string[] = [];
    const ndjson = (vm.exports.streamFormat ?? (type.includes("ndjson") ? "ndjson" : "sse")) ===
      "ndjson";
    const feed = ndjson ? lineSplitter(lines) : sseFeeder(lines);
    try {
      // One call into Lua per network read: the lines it completed go in together.
      for await (const chunk of exchange.chunks()) {
        feed(chunk);
        const batch = lines.splice(0);
        for (const unified of this.#guard(() => vm.streamChunks(id, batch), failures)) {
          if (unified !== undefined) yield* state.apply(unified);
          if (state.finished) break;
        }
        if (state.finished) break;
      }
      if (ndjson && !state.finished) {
        feed("\n");
        const batch = lines.splice(0);
        for (const unified of this.#guard(() => vm.streamChunks(id, batch), failures)) {
          if (unified !== undefined) yield* state.apply(unified);
        }
      }
    } finally {
      vm.endStream(id);
    }
    return state.response();
  }

  /** Run a script call; a LuaScriptError becomes this source's ProviderError. */
  #guard<T>(fn: () => T, failures: SourceFailures): T {
    try {
      return fn();
    } catch (error) {
      if (error instanceof LuaScriptError) throw scriptFailure(failures, error);
      throw error;
    }
  }

  #asError(error: unknown): ProviderError {
    if (error instanceof ProviderError) return error;
    const failures = new SourceFailures(this.name, this.#source.baseUrl);
    if (error instanceof LuaScriptError) return scriptFailure(failures, error);
    const message = error instanceof Error ? error.message : String(error);
    return failures.make("bad_request", `cannot run Lua adapter "${this.adapter}": ${message}`, {
      cause: error,
    });
  }
}

/** A script failure is not transient: no retry of the same source, fallback to the next. */
function scriptFailure(failures: SourceFailures, error: LuaScriptError): ProviderError {
  return failures.make("bad_request", `failed: ${error.message}`, { cause: error });
}

/** The `config` table a script's endpoint() and headers() receive. */
function configJson(source: SourceConfig): string {
  return JSON.stringify({
    name: source.name,
    model: source.model,
    base_url: source.baseUrl,
    api_key: source.apiKey ?? "",
  });
}

function sseFeeder(out: string[]): (chunk: string) => void {
  const parser = createParser({ onEvent: (message) => out.push(message.data) });
  return (chunk) => parser.feed(chunk);
}

function lineSplitter(out: string[]): (chunk: string) => void {
  let rest = "";
  return (chunk) => {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop() ?? "";
    for (const part of parts) if (part.trim() !== "") out.push(part.trim());
  };
}
