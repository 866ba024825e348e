/** The native Ollama client: `POST {baseUrl}/api/chat`, JSON or NDJSON. */
import { z } from "zod";
import type {
  CallOptions,
  ChatMessage,
  ChatRequest,
  ChatResponse,
  FinishReason,
  Provider,
  SourceConfig,
  StreamEvent,
} from "../core/mod.ts";
import { clientTarget, type NativeClientOptions, windowOf } from "./_client.ts";
import {
  chatCall,
  type HttpExchange,
  type HttpTarget,
  parseJson,
  type SourceFailures,
  streamCall,
} from "./_http.ts";
import { wireTools } from "./_openai_wire.ts";
import { StreamAssembler } from "./_stream_assembler.ts";

/** Options of OllamaProvider. */
export interface OllamaProviderOptions extends NativeClientOptions {
  source: SourceConfig;
}

const WireLine = z.lazy(() =>
  z.object({
    model: z.string().nullish(),
    message: z.object({
      content: z.string().nullish(),
      thinking: z.string().nullish(),
      tool_calls: z.array(z.object({
        id: z.string().nullish(),
        function: z.object({
          name: z.string(),
          arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).nullish(),
        }),
      })).nullish(),
    }).nullish(),
    done: z.boolean().nullish(),
    done_reason: z.string().nullish(),
    prompt_eval_count: z.number().nullish(),
    eval_count: z.number().nullish(),
    error: z.string().nullish(),
  })
);
type WireLine = z.infer<typeof WireLine>;

/** A Provider over a local (or remote) Ollama server. */
export class OllamaProvider implements Provider {
  readonly name: string;
  readonly model: string;
  #source: SourceConfig;
  #target: HttpTarget;
  #window: () => number;

  constructor(options: OllamaProviderOptions) {
    this.name = options.source.name;
    this.model = options.source.model;
    this.#source = options.source;
    this.#target = clientTarget(options.source, "/api/chat", options);
    this.#window = windowOf(options.source, options);
  }

  /** The declared window, else the model table's. */
  maxContextTokens(): number {
    return this.#window();
  }

  /** One non-streamed chat; rejects with ProviderError. */
  chat(request: ChatRequest, options: CallOptions = {}): Promise<ChatResponse> {
    return chatCall(this.#target, this.#body(request, false), (text, failures) => {
      const state = new OllamaState(this.model, failures);
      state.apply(text);
      return state.response();
    }, options.signal);
  }

  /** One streamed chat; ends with exactly one `done` or `error` event. */
  stream(request: ChatRequest, options: CallOptions = {}): AsyncIterable<StreamEvent> {
    return streamCall(
      this.#target,
      this.#body(request, true),
      (exchange) => this.#read(exchange),
      options.signal,
    );
  }

  #body(request: ChatRequest, stream: boolean) {
    const options = {
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxTokens !== undefined ? { num_predict: request.maxTokens } : {}),
      // Ollama silently truncates prompts to its small default window unless told otherwise.
      ...(this.#source.contextWindow ? { num_ctx: this.#source.contextWindow } : {}),
    };
    return {
      model: this.model,
      messages: request.messages.map(wireMessage),
      ...wireTools(request),
      stream,
      ...(Object.keys(options).length > 0 ? { options } : {}),
    };
  }

  async *#read(exchange: HttpExchange): AsyncGenerator<StreamEvent, ChatResponse> {
    const state = new OllamaState(this.model, exchange.failures);
    if (exchange.response.headers.get("content-type")?.includes("application/json")) {
      // One JSON answer (a server that ignores `stream`), which may span several lines.
      yield* state.apply(await exchange.text());
      return state.response();
    }
    let buffer = "";
    for await (const chunk of exchange.chunks()) {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) yield* state.apply(line);
      if (state.done) break;
    }
    if (!state.done) yield* state.apply(buffer);
    return state.response();
  }
}

/** Folds NDJSON lines (or the one JSON body) of an answer into events and the response. */
class OllamaState {
  #failures: SourceFailures;
  #answer: StreamAssembler;
  #calls = 0;
  done = false;

  constructor(model: string, failures: SourceFailures) {
    this.#failures = failures;
    this.#answer = new StreamAssembler(model, finishReason);
  }

  apply(text: string): StreamEvent[] {
    if (text.trim() === "") return [];
    const parsed = WireLine.safeParse(parseJson(text, this.#failures, "a line"));
    if (!parsed.success) throw this.#failures.malformed("a line of unknown shape", text);
    const line = parsed.data;
    if (line.error) throw this.#failures.reported(line.error);
    const answer = this.#answer;
    if (line.model) answer.model = line.model;
    const events: StreamEvent[] = [];
    const message = line.message;
    answer.reasoning(message?.thinking, events);
    answer.text(message?.content, events);
    // Each call arrives whole, with its arguments as an object and often without an id.
    for (const call of message?.tool_calls ?? []) {
      const args = call.function.arguments ?? {};
      answer.toolCall({
        index: this.#calls++,
        id: call.id || `call_${crypto.randomUUID().slice(0, 8)}`,
        name: call.function.name,
        argumentsDelta: typeof args === "string" ? args : JSON.stringify(args),
      }, events);
    }
    if (line.done) this.#finish(line, events);
    return events;
  }

  response(): ChatResponse {
    if (!this.done) {
      throw this.#failures.malformed("a stream that ended before the answer was complete");
    }
    return this.#answer.response();
  }

  #finish(line: WireLine, events: StreamEvent[]): void {
    this.done = true;
    this.#answer.finish(line.done_reason);
    if (line.prompt_eval_count != null || line.eval_count != null) {
      const usage = {
        promptTokens: line.prompt_eval_count ?? 0,
        completionTokens: line.eval_count ?? 0,
      };
      this.#answer.usage(usage, events);
    }
  }
}

function wireMessage(message: ChatMessage) {
  switch (message.role) {
    case "system":
      return { role: message.role, content: message.content };
    case "user":
      // Ollama's `images`: base64 without a data: prefix, beside the text.
      return message.images?.length
        ? { role: "user", content: message.content, images: message.images.map((i) => i.data) }
        : { role: "user", content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.toolCalls?.length
          ? {
            tool_calls: message.toolCalls.map((c) => ({
              function: { name: c.name, arguments: argumentsObject(c.arguments) },
            })),
          }
          : {}),
      };
    case "tool":
      return { role: "tool", content: message.content, tool_name: message.name };
  }
}

/** Ollama wants tool arguments as an object; text that is not a JSON object becomes `{}`. */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // fall through
  }
  return {};
}

function finishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls) return "tool_calls";
  return reason === "length" ? "length" : "stop";
}
