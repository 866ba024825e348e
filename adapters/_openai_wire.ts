/** The OpenAI chat-completions wire format: request bodies and the parsing of answers. */
import { z } from "zod";
import type {
  ChatMessage,
  ChatRequest,
  ChatResponse,
  FinishReason,
  StreamEvent,
  Usage,
} from "../core/mod.ts";
import { parseJson, type SourceFailures } from "./_http.ts";
import { StreamAssembler } from "./_stream_assembler.ts";

/** The JSON body of `POST /chat/completions`. */
export function openaiBody(model: string, request: ChatRequest, stream: boolean) {
  return {
    model,
    messages: request.messages.map(wireMessage),
    ...wireTools(request),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  };
}

/** `{tools}` in OpenAI's function form (Ollama takes the same), or nothing without tools. */
export function wireTools(request: ChatRequest) {
  if (!request.tools?.length) return {};
  return {
    tools: request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    })),
  };
}

function wireMessage(message: ChatMessage) {
  switch (message.role) {
    case "system":
      return { role: message.role, content: message.content };
    case "user":
      if (!message.images?.length) return { role: "user", content: message.content };
      // OpenAI's content parts: the text, then each image as a data: URL.
      return {
        role: "user",
        content: [
          ...(message.content === "" ? [] : [{ type: "text", text: message.content }]),
          ...message.images.map((image) => ({
            type: "image_url",
            image_url: { url: `data:${image.mime};base64,${image.data}` },
          })),
        ],
      };
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

const WireUsage = z.lazy(() =>
  z.object({
    prompt_tokens: z.number().nullish(),
    completion_tokens: z.number().nullish(),
    prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
  })
);

const WireToolCall = z.lazy(() =>
  z.object({
    index: z.number().int().nonnegative().nullish(),
    id: z.string().nullish(),
    function: z.object({
      name: z.string().nullish(),
      arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
    }).nullish(),
  })
);

/** A completion's `message` or a chunk's `delta`. */
const WirePart = z.lazy(() =>
  z.object({
    content: z.string().nullish(),
    "reasoning_content": z.string().nullish(),
    reasoning: z.string().nullish(),
    "tool_calls": z.array(WireToolCall).nullish(),
  })
);

const finishReasonField = { "finish_reason": z.string().nullish() };

const WireCompletion = z.lazy(() =>
  z.object({
    model: z.string().nullish(),
    choices: z.array(z.object({ message: WirePart.nullish(), ...finishReasonField })).nullish(),
    usage: WireUsage.nullish(),
  })
);

/** A stream chunk: a completion whose choices hold a `delta`. */
const WireChunk = z.lazy(() =>
  WireCompletion.unwrap().extend({
    choices: z.array(z.object({ delta: WirePart.nullish(), ...finishReasonField })).nullish(),
  })
);

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
  const answer = new StreamAssembler(parsed.data.model ?? model, finishReason);
  fold(answer, choice.message);
  answer.finish(choice.finish_reason);
  answer.usage(toUsage(parsed.data.usage));
  return answer.response();
}

/** Folds SSE `data:` payloads of a streamed answer into events and the final response. */
export class OpenAIStreamState {
  #failures: SourceFailures;
  #answer: StreamAssembler;
  /** True once `data: [DONE]` arrived. */
  finished = false;

  constructor(model: string, failures: SourceFailures) {
    this.#failures = failures;
    this.#answer = new StreamAssembler(model, finishReason);
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
    const answer = this.#answer;
    const events: StreamEvent[] = [];
    if (chunk.model) answer.model = chunk.model;
    const choice = chunk.choices?.[0];
    fold(answer, choice?.delta, events);
    answer.finish(choice?.finish_reason);
    answer.usage(toUsage(chunk.usage), events);
    return events;
  }

  /** The final response; throws ProviderError when the stream ended before finishing. */
  response(): ChatResponse {
    if (!this.finished && !this.#answer.finishSent) {
      throw this.#failures.malformed("a stream that ended before the answer was complete");
    }
    return this.#answer.response();
  }
}

/** A message or delta: reasoning, then text, then tool-call pieces, as the events go. */
function fold(
  answer: StreamAssembler,
  part: z.infer<typeof WirePart> | null | undefined,
  events?: StreamEvent[],
): void {
  if (!part) return;
  answer.reasoning(part.reasoning_content ?? part.reasoning, events);
  answer.text(part.content, events);
  part.tool_calls?.forEach((call, i) => answer.toolCall(toolDelta(call, i), events));
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
