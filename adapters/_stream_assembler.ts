/**
 * One answer gathered from its pieces, for every wire format the clients read (OpenAI SSE
 * chunks, Ollama NDJSON lines, a whole JSON body): text, reasoning, tool-call fragments, usage
 * and finish reason are accumulated here once, and each piece becomes the stream event a
 * caller sees. The wire states only parse their format and say when an answer is complete.
 */
import {
  type ChatResponse,
  type FinishReason,
  type StreamEvent,
  ToolCallAccumulator,
  type Usage,
} from "../core/mod.ts";

/** A piece of a tool call: the first of an `index` names it, later ones add to its arguments. */
export interface ToolCallPiece {
  index: number;
  id?: string;
  name?: string;
  argumentsDelta?: string;
}

/** Maps the finish reason a wire sent (undefined: none) to ours. */
export type FinishMapping = (reason: string | undefined, hasToolCalls: boolean) => FinishReason;

/**
 * Accumulates one answer. Each method takes an optional `events` list and pushes the event of
 * the piece onto it (none for an empty piece); without one it only accumulates (a whole body).
 */
export class StreamAssembler {
  /** The model that answered: the configured one until the wire names another. */
  model: string;
  #mapFinish: FinishMapping;
  #text = "";
  #reasoning = "";
  #tools = new ToolCallAccumulator();
  #usage?: Usage;
  #finish?: string;

  constructor(model: string, mapFinish: FinishMapping) {
    this.model = model;
    this.#mapFinish = mapFinish;
  }

  /** Whether the wire sent a finish reason. */
  get finishSent(): boolean {
    return this.#finish !== undefined;
  }

  /** Append answer text. */
  text(delta: string | null | undefined, events?: StreamEvent[]): void {
    if (!delta) return;
    this.#text += delta;
    events?.push({ type: "text_delta", text: delta });
  }

  /** Append reasoning. */
  reasoning(delta: string | null | undefined, events?: StreamEvent[]): void {
    if (!delta) return;
    this.#reasoning += delta;
    events?.push({ type: "reasoning_delta", text: delta });
  }

  /** Add a piece of a tool call. */
  toolCall(piece: ToolCallPiece, events?: StreamEvent[]): void {
    this.#tools.add(piece);
    events?.push({ type: "tool_call_delta", ...piece });
  }

  /** Record usage (the last report wins). */
  usage(usage: Usage | undefined, events?: StreamEvent[]): void {
    if (!usage) return;
    this.#usage = usage;
    events?.push({ type: "usage", usage });
  }

  /** Record the finish reason the wire sent, if any. */
  finish(reason: string | null | undefined): void {
    if (reason) this.#finish = reason;
  }

  /** The answer as gathered so far. */
  response(): ChatResponse {
    const toolCalls = this.#tools.calls();
    return {
      text: this.#text,
      ...(this.#reasoning ? { reasoning: this.#reasoning } : {}),
      toolCalls,
      usage: this.#usage,
      finishReason: this.#mapFinish(this.#finish, toolCalls.length > 0),
      model: this.model,
    };
  }
}

/** The events a streamed call would have produced for a complete response. */
export function* eventsOf(response: ChatResponse): Generator<StreamEvent> {
  if (response.reasoning) yield { type: "reasoning_delta", text: response.reasoning };
  if (response.text) yield { type: "text_delta", text: response.text };
  for (const [index, call] of response.toolCalls.entries()) {
    yield {
      type: "tool_call_delta",
      index,
      id: call.id,
      name: call.name,
      argumentsDelta: call.arguments,
    };
  }
  if (response.usage) yield { type: "usage", usage: response.usage };
}
