/**
 * The provider contract: what the kernel needs from an LLM source, kept apart from any
 * implementation (adapters/ implements it over HTTP).
 */
import type { ProviderError } from "../errors.ts";

/** A tool call the model asked for. `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** An image sent with a user message: its type and its bytes in base64 (no data: prefix). */
export interface ImagePart {
  mime: string;
  data: string;
}

/** One message of the conversation sent to a provider. */
export type ChatMessage =
  | { role: "system"; content: string }
  /** `images` reach a source only when it declares `vision`; others get a note instead. */
  | { role: "user"; content: string; images?: ImagePart[] }
  | { role: "assistant"; content: string; toolCalls?: ToolCall[]; reasoning?: string }
  | { role: "tool"; toolCallId: string; name: string; content: string };

/** JSON Schema of a tool's arguments, as sent to the model. */
export type JsonSchema = Record<string, unknown>;

/** A tool definition as the model sees it. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** Token counts of one call, as the provider reported them. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
}

/** What a provider call asks for. */
export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolSchema[];
  temperature?: number;
  maxTokens?: number;
}

/** Why the model stopped. */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "error";

/** A complete answer of one provider call. */
export interface ChatResponse {
  text: string;
  reasoning?: string;
  toolCalls: ToolCall[];
  usage?: Usage;
  finishReason: FinishReason;
  model: string;
}

/**
 * One event of a streamed call. A stream ends with exactly one `done` or one `error`; it never
 * throws for provider failures (only for misuse).
 */
export type StreamEvent =
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  | { type: "tool_call_delta"; index: number; id?: string; name?: string; argumentsDelta?: string }
  | { type: "usage"; usage: Usage }
  | { type: "done"; response: ChatResponse }
  | { type: "error"; error: ProviderError };

/** Options of one call; `signal` cancels the HTTP request itself. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** An LLM source. Implementations must honour `signal` by aborting the underlying request. */
export interface Provider {
  /** Source name from config (`core.llm.sources.<name>`). */
  readonly name: string;
  /** Model identifier sent to the API. */
  readonly model: string;
  /** The declared context window in tokens (per-source `context_window` wins over the model table). */
  maxContextTokens(): number;
  /** One non-streamed call. Rejects with ProviderError (kind "cancelled" when aborted). */
  chat(request: ChatRequest, options?: CallOptions): Promise<ChatResponse>;
  /** One streamed call; see StreamEvent for the ending guarantee. */
  stream(request: ChatRequest, options?: CallOptions): AsyncIterable<StreamEvent>;
}

/** Accumulates tool-call deltas (OpenAI-style: split across chunks by index) into calls. */
export class ToolCallAccumulator {
  #calls: { id: string; name: string; arguments: string }[] = [];

  /** Apply one delta. */
  add(delta: { index: number; id?: string; name?: string; argumentsDelta?: string }): void {
    const slot = this.#calls[delta.index] ??= { id: "", name: "", arguments: "" };
    if (delta.id) slot.id = delta.id;
    if (delta.name) slot.name += delta.name;
    if (delta.argumentsDelta) slot.arguments += delta.argumentsDelta;
  }

  /** The calls gathered so far, with generated ids where the provider sent none. */
  calls(): ToolCall[] {
    return this.#calls.filter((c) => c !== undefined).map((c, i) => ({
      id: c.id || `call_${i}`,
      name: c.name,
      arguments: c.arguments,
    }));
  }
}
