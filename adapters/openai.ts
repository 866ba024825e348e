/** The native OpenAI-compatible client: `POST {baseUrl}/chat/completions`, JSON or SSE. */
import { createParser } from "eventsource-parser";
import type {
  CallOptions,
  ChatRequest,
  ChatResponse,
  Provider,
  SourceConfig,
  StreamEvent,
} from "../core/mod.ts";
import { clientTarget, type NativeClientOptions, windowOf } from "./_client.ts";
import { chatCall, type HttpExchange, type HttpTarget, streamCall } from "./_http.ts";
import { openaiBody, OpenAIStreamState, parseCompletion } from "./_openai_wire.ts";
import { eventsOf } from "./_stream_assembler.ts";

/** Options of OpenAIProvider. */
export interface OpenAIProviderOptions extends NativeClientOptions {
  source: SourceConfig;
}

/** A Provider over any OpenAI-compatible chat-completions endpoint. */
export class OpenAIProvider implements Provider {
  readonly name: string;
  readonly model: string;
  #target: HttpTarget;
  #window: () => number;

  constructor(options: OpenAIProviderOptions) {
    this.name = options.source.name;
    this.model = options.source.model;
    this.#target = clientTarget(options.source, "/chat/completions", options);
    this.#window = windowOf(options.source, options);
  }

  /** The declared window, else the model table's. */
  maxContextTokens(): number {
    return this.#window();
  }

  /** One non-streamed completion; rejects with ProviderError. */
  chat(request: ChatRequest, options: CallOptions = {}): Promise<ChatResponse> {
    const body = openaiBody(this.model, request, false);
    return chatCall(
      this.#target,
      body,
      (text, failures) => parseCompletion(text, this.model, failures),
      options.signal,
    );
  }

  /** One streamed completion; ends with exactly one `done` or `error` event. */
  stream(request: ChatRequest, options: CallOptions = {}): AsyncIterable<StreamEvent> {
    const body = openaiBody(this.model, request, true);
    return streamCall(this.#target, body, (exchange) => this.#read(exchange), options.signal);
  }

  async *#read(exchange: HttpExchange): AsyncGenerator<StreamEvent, ChatResponse> {
    if (exchange.response.headers.get("content-type")?.includes("application/json")) {
      // Some compatible servers ignore `stream: true` and answer in one piece.
      const response = parseCompletion(await exchange.text(), this.model, exchange.failures);
      yield* eventsOf(response);
      return response;
    }
    const state = new OpenAIStreamState(this.model, exchange.failures);
    const data: string[] = [];
    const parser = createParser({ onEvent: (message) => data.push(message.data) });
    for await (const chunk of exchange.chunks()) {
      parser.feed(chunk);
      for (const payload of data.splice(0)) yield* state.apply(payload);
      if (state.finished) break;
    }
    return state.response();
  }
}
