/** The OpenAI chat-completions wire format: request bodies and the parsing of answers. */
import { z } from "zod";
import {
  type ChatMessage,
  type ChatRequest,
  type ChatResponse,
  type FinishReason,
  type StreamEvent,
  ToolCallAccumulator,
  type Usage,
} from "../core/mod.ts";
import { parseJson, type SourceFailures } from "./_http.ts";

/** The JSON body of `POST /chat/completions`. */
export function openaiBody(model: string, request: ChatRequest, stream: boolean) {
  return {
    model,
    messages: request.messages.map(wireMessage),
    ...(request.tools?.length
      ? {
        tools: request.tools.map((t) => ({
          type: "function",
          function: { name: t.name, description: t.description, parameters: t.parameters },
        })),
      }
      : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  };
}

function wireMessage(message: ChatMessage) {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant":
      if (!message.toolCalls?.length) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: message.content === "" ? null : message.content,
        tool_calls: message.toolCalls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}

const WireUsage = z.object({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
});

const WireToolCall = z.object({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  function: z.object({
    name: z.string().nullish(),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }).nullish(),
});

const WireText = {
  content: z.string().nullish(),
  "reasoning_content": z.string().nullish(),
  reasoning: z.string().nullish(),
  "tool_calls": z.array(WireToolCall).nullish(),
};

const WireCompletion = z.object({
  model: z.string().nullish(),
  choices: z.array(z.object({
    message: z.object(WireText).nullish(),
    finish_reason: z.string().nullish(),
  })).nullish(),
  usage: WireUsage.nullish(),
});

const WireChunk = z.object({
  model: z.string().nullish(),
  choices: z.array(z.object({
    delta: z.object(WireText).nullish(),
    finish_reason: z.string().nullish(),
  })).nullish(),
  usage: WireUsage.nullish(),
});

/** Parse a non-streamed answer body. Throws ProviderError (malformed, or the reported error). */
export function parseCompletion(
  text: string,
  model: string,
  failures: SourceFailures,
): ChatResponse {
  const json = parseJson(text, failures, "a body");
  rejectReportedError(json, failures);
  const parsed = WireCompletion.safeParse(json);
  const choice = parsed.data?.choices?.[0];
  if (!parsed.success || !choice?.message) {
    throw failures.malformed("an answer without a message", text);
  }
  const message = choice.message;
  const accumulator = new ToolCallAccumulator();
  message.tool_calls?.forEach((call, i) => accumulator.add(toolDelta(call, i)));
  const toolCalls = accumulator.calls();
  const reasoning = message.reasoning_content ?? message.reasoning ?? undefined;
  return {
    text: message.content ?? "",
    ...(reasoning ? { reasoning } : {}),
    toolCalls,
    usage: toUsage(parsed.data.usage),
    finishReason: finishReason(choice.finish_reason, toolCalls.length > 0),
    model: parsed.data.model ?? model,
  };
}

/** Folds SSE `data:` payloads of a streamed answer into events and the final response. */
export class OpenAIStreamState {
  #model: string;
  #failures: SourceFailures;
  #text = "";
  #reasoning = "";
  #tools = new ToolCallAccumulator();
  #usage?: Usage;
  #finish?: string;
  /** True once `data: [DONE]` arrived. */
  finished = false;

  constructor(model: string, failures: SourceFailures) {
    this.#model = model;
    this.#failures = failures;
  }

  /** Apply one SSE data payload; throws ProviderError for bad data or a reported error. */
  apply(data: string): StreamEvent[] {
    if (data.trim() === "[DONE]") {
      this.finished = true;
      return [];
    }
    const json = parseJson(data, this.#failures, "stream data");
    rejectReportedError(json, this.#failures);
    const parsed = WireChunk.safeParse(json);
    if (!parsed.success) throw this.#failures.malformed("a stream chunk of unknown shape", data);
    const chunk = parsed.data;
    const events: StreamEvent[] = [];
    if (chunk.model) this.#model = chunk.model;
    const choice = chunk.choices?.[0];
    const delta = choice?.delta;
    const reasoning = delta?.reasoning_content ?? delta?.reasoning;
    if (reasoning) {
      this.#reasoning += reasoning;
      events.push({ type: "reasoning_delta", text: reasoning });
    }
    if (delta?.content) {
      this.#text += delta.content;
      events.push({ type: "text_delta", text: delta.content });
    }
    delta?.tool_calls?.forEach((call, i) => {
      const event = toolDelta(call, i);
      this.#tools.add(event);
      events.push({ type: "tool_call_delta", ...event });
    });
    if (choice?.finish_reason) this.#finish = choice.finish_reason;
    const usage = toUsage(chunk.usage);
    if (usage) {
      this.#usage = usage;
      events.push({ type: "usage", usage });
    }
    return events;
  }

  /** The final response; throws ProviderError when the stream ended before finishing. */
  response(): ChatResponse {
    if (!this.finished && this.#finish === undefined) {
      throw this.#failures.malformed("a stream that ended before the answer was complete");
    }
    const toolCalls = this.#tools.calls();
    return {
      text: this.#text,
      ...(this.#reasoning ? { reasoning: this.#reasoning } : {}),
      toolCalls,
      usage: this.#usage,
      finishReason: finishReason(this.#finish, toolCalls.length > 0),
      model: this.#model,
    };
  }
}

function toolDelta(call: z.infer<typeof WireToolCall>, position: number) {
  const args = call.function?.arguments;
  return {
    index: call.index ?? position,
    ...(call.id ? { id: call.id } : {}),
    ...(call.function?.name ? { name: call.function.name } : {}),
    ...(args ? { argumentsDelta: typeof args === "string" ? args : JSON.stringify(args) } : {}),
  };
}

function toUsage(usage: z.infer<typeof WireUsage> | null | undefined): Usage | undefined {
  if (!usage || (usage.prompt_tokens == null && usage.completion_tokens == null)) return undefined;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: usage.prompt_tokens ?? 0,
    completionTokens: usage.completion_tokens ?? 0,
    ...(cached != null ? { cachedTokens: cached } : {}),
  };
}

function finishReason(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case "length":
      return "length";
    case "content_filter":
      return "content_filter";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    default:
      return hasToolCalls ? "tool_calls" : "stop";
  }
}

/** A 200 body carrying `{error: ...}` is the provider reporting a failure. */
function rejectReportedError(json: unknown, failures: SourceFailures): void {
  if (!json || typeof json !== "object" || !("error" in json)) return;
  const error = (json as { error: unknown }).error;
  if (error == null) return;
  const message = typeof error === "string"
    ? error
    : (error as { message?: unknown }).message ?? JSON.stringify(error);
  throw failures.reported(String(message));
}
