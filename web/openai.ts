/**
 * The OpenAI-compatible endpoint: `POST /v1/chat/completions` (stream and not), `GET /v1/models`
 * and `GET /v1/models/{id}`, with OpenAI's error bodies, so existing OpenAI clients and SDKs
 * talk to the agent, which answers with its memory but without tools. A request stays out of
 * memory (an ephemeral input) unless it asks to be remembered with the header
 * `X-HomeAgent-Remember: 1` or the body field `"remember": true`. A client that goes away
 * cancels its turn. docs/web.md describes the behaviour a client sees.
 */
import type { Context, Hono } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { HomeAgentError, type Reply } from "../core/mod.ts";
import type { WebDeps } from "./ports.ts";
import type { WebEnv } from "./_login.ts";
import { errorResponse, HttpError, parseBody } from "./_http.ts";
import { type OpenAITurn, startTurn, StreamedText, usageOf } from "./_openai_turn.ts";
import { imageUrlOf, storeDataUrls } from "./_media.ts";

export { OPENAI_CHANNEL } from "./_openai_turn.ts";

/** How one HomeAgent error code is told to an OpenAI client. */
export interface OpenAIErrorKind {
  status: ContentfulStatusCode;
  type: string;
  /** OpenAI's `code`; null as OpenAI sends it for plain request errors. */
  code: string | null;
  /** The request field at fault when the error itself does not name one. */
  param?: string;
  /** False adds `x-should-retry: false`: the SDKs then do not retry (it cannot help). */
  retry?: false;
}

/**
 * HomeAgent error codes (HttpError codes and a reply's errorCode) as OpenAI reports the same
 * failure. A code not listed keeps its HTTP status and is sent as its own `code`. Add one
 * entry per new kernel refusal.
 */
export const OPENAI_ERRORS: Readonly<Record<string, OpenAIErrorKind>> = {
  unauthorized: { status: 401, type: "invalid_request_error", code: "invalid_api_key" },
  "too_many_attempts": { status: 429, type: "requests", code: "rate_limit_exceeded", retry: false },
  "bad_request": { status: 400, type: "invalid_request_error", code: null },
  "too_large": { status: 413, type: "invalid_request_error", code: "request_too_large" },
  "not_found": { status: 404, type: "invalid_request_error", code: "unknown_url" },
  "model_not_found": { status: 404, type: "invalid_request_error", code: "model_not_found" },
  "context_length_exceeded": {
    status: 400,
    type: "invalid_request_error",
    code: "context_length_exceeded",
    param: "messages",
  },
  refused: { status: 429, type: "requests", code: "rate_limit_exceeded" },
  "no_provider": { status: 503, type: "server_error", code: "no_llm_source", retry: false },
  "providers_all_failed": { status: 502, type: "server_error", code: "upstream_error" },
  stopped: { status: 503, type: "server_error", code: "turn_stopped", retry: false },
  "stream_diverged": { status: 502, type: "server_error", code: "stream_diverged" },
  internal: { status: 500, type: "server_error", code: null },
  "media_too_large": {
    status: 413,
    type: "invalid_request_error",
    code: "image_too_large",
    param: "messages",
  },
  "media_too_many": {
    status: 400,
    type: "invalid_request_error",
    code: "too_many_images",
    param: "messages",
  },
  "media_too_many_pixels": {
    status: 400,
    type: "invalid_request_error",
    code: "image_too_large",
    param: "messages",
  },
  "media_type_refused": {
    status: 400,
    type: "invalid_request_error",
    code: "invalid_image_format",
    param: "messages",
  },
};

/** OpenAI's error body. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Status, body and headers of `error` as OpenAI would send it. */
export function openAIError(
  error: unknown,
): { status: ContentfulStatusCode; body: OpenAIErrorBody; headers: Record<string, string> } {
  const plain = errorResponse(error);
  const kind = OPENAI_ERRORS[plain.code];
  const status = kind?.status ?? plain.status;
  const param = (error instanceof HttpError ? error.param : undefined) ?? kind?.param ?? null;
  const body = {
    error: {
      message: plain.message,
      type: kind?.type ?? (status >= 500 ? "server_error" : "invalid_request_error"),
      param,
      code: kind ? kind.code : plain.code,
    },
  };
  return { status, body, headers: kind?.retry === false ? { "x-should-retry": "false" } : {} };
}

const Part = z.lazy(() =>
  z.object({ type: z.string(), text: z.string().optional() }).passthrough()
);
const Message = z.lazy(() =>
  z.object({
    role: z.enum(["system", "developer", "user", "assistant", "tool"]),
    content: z.union([z.string(), z.array(Part), z.null()]).optional(),
    name: z.string().optional(),
  }).passthrough()
);
const CompletionBody = z.lazy(() =>
  z.object({
    model: z.string().max(200).optional(),
    messages: z.array(Message).min(1).max(500),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullish(),
    remember: z.boolean().optional(),
  }).passthrough()
);
type CompletionBody = z.infer<typeof CompletionBody>;

function contentOf(message: CompletionBody["messages"][number]): string {
  const content = message.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((p) => p.text ?? "").join("");
}

/**
 * The agent's input for a request: the last user message; earlier messages, when the client
 * sends its own history, go before it as a transcript.
 */
export function inputText(
  messages: CompletionBody["messages"],
  options: { withImages?: boolean } = {},
): string {
  let last = -1;
  messages.forEach((m, i) => {
    if (m.role === "user") last = i;
  });
  if (last < 0) {
    throw new HttpError(400, "bad_request", "messages: no user message", { param: "messages" });
  }
  const question = contentOf(messages[last]!);
  if (question.trim() === "" && !options.withImages) {
    throw new HttpError(400, "bad_request", "messages: empty user message", {
      param: `messages.[${last}].content`,
    });
  }
  const before = messages.slice(0, last).map((m) => `${m.role}: ${contentOf(m)}`);
  if (before.length === 0) return question;
  return `[Earlier in this conversation]\n${before.join("\n")}\n\n[Now]\n${question}`;
}

/** The image URLs of the last user message's `image_url` parts, in order. */
function lastUserImages(messages: CompletionBody["messages"]): string[] {
  const last = messages.findLast((m) => m.role === "user");
  if (!last || !Array.isArray(last.content)) return [];
  return last.content.flatMap((part) => imageUrlOf(part) ?? []);
}

/** The failure a non-"ok" reply stands for (a short circuit is an answer). */
function replyError(reply: Reply): HomeAgentError | undefined {
  if (reply.status === "ok" || reply.status === "short_circuit") return undefined;
  const code = reply.status === "stopped" ? "stopped" : reply.errorCode ?? "internal";
  return new HttpError(500, code, reply.text);
}

/** Mount `/v1/models`, `/v1/models/{id}` and `/v1/chat/completions` on `app` (behind its auth). */
export function mountOpenAI(app: Hono<WebEnv>, deps: WebDeps): void {
  const model = deps.modelName ?? "homeagent";
  const card = { id: model, object: "model", created: 0, "owned_by": "homeagent" };
  const known = (id: string) => {
    if (id === model) return;
    throw new HttpError(
      404,
      "model_not_found",
      `The model "${id}" does not exist: this server answers as model "${model}"`,
      { param: "model" },
    );
  };
  app.get("/v1/models", (c) => c.json({ object: "list", data: [card] }));
  app.get("/v1/models/:id{.+}", (c) => {
    known(c.req.param("id"));
    return c.json(card);
  });

  app.post("/v1/chat/completions", async (c) => {
    const body = await parseBody(c, CompletionBody);
    known(body.model ?? model);
    const urls = lastUserImages(body.messages);
    const text = inputText(body.messages, { withImages: urls.length > 0 });
    const images = await storeDataUrls(deps, urls);
    const note = images.off > 0 ? `\n\n[${images.off} image(s) attached; media memory is off]` : "";
    const remember = body.remember === true || c.req.header("x-homeagent-remember") === "1";
    // The client going away (the request's signal) cancels the turn. The listener is removed
    // once the answer is out: Deno also aborts that signal after a response completes.
    const cancel = new AbortController();
    const gone = () => cancel.abort();
    c.var.gone.addEventListener("abort", gone, { once: true });
    const turn = startTurn(deps, text + note, {
      remember,
      signal: cancel.signal,
      media: images.refs,
    });
    const close = () => {
      c.var.gone.removeEventListener("abort", gone);
      turn.close();
    };
    const answer: Answer = {
      c,
      turn,
      text,
      model: body.model ?? model,
      created: Math.floor(deps.clock.now() / 1000),
      includeUsage: body.stream_options?.include_usage === true,
      cancel,
    };
    let streaming = false;
    try {
      if (body.stream !== true) return c.json(await completion(answer));
      // Fail before the first byte with a real status: only after content exists does the
      // answer become a stream, and a failure after that is an error event.
      await turn.started;
      const early = await settled(turn.reply);
      const failed = early && replyError(early);
      if (failed) throw failed;
      streaming = true;
      return streamSSE(c, (stream) => streamAnswer(stream, answer).finally(close));
    } finally {
      if (!streaming) close();
    }
  });
}

/** What the answer of one request is built from. */
interface Answer {
  c: Context;
  turn: OpenAITurn;
  text: string;
  model: string;
  created: number;
  includeUsage: boolean;
  /** Cancels the turn (the stream's client went away). */
  cancel: AbortController;
}

async function completion(a: Answer) {
  const reply = await a.turn.reply;
  const failed = replyError(reply);
  if (failed) throw failed;
  return {
    id: `chatcmpl-${a.turn.id}`,
    object: "chat.completion",
    created: a.created,
    model: a.model,
    choices: [{
      index: 0,
      message: { role: "assistant", content: reply.text, refusal: null },
      logprobs: null,
      finish_reason: "stop",
    }],
    usage: usageOf(a.turn, a.text, reply),
  };
}

async function streamAnswer(stream: SSEStreamingApi, a: Answer): Promise<void> {
  stream.onAbort(() => a.cancel.abort());
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    data: JSON.stringify({
      id: `chatcmpl-${a.turn.id}`,
      object: "chat.completion.chunk",
      created: a.created,
      model: a.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(a.includeUsage ? { usage: null } : {}),
    }),
  });
  const text = new StreamedText();
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  a.turn.onContent((delta) => {
    const piece = text.push(delta);
    if (piece !== "") queue.push(piece);
    wake?.();
  });
  let reply: Reply | undefined;
  a.turn.reply.then((r) => (reply = r, wake?.()));
  try {
    await stream.writeSSE(chunk({ role: "assistant", content: "" }, null));
    while (!stream.aborted) {
      for (let piece = queue.shift(); piece !== undefined; piece = queue.shift()) {
        await stream.writeSSE(chunk({ content: piece }, null));
      }
      if (reply) break;
      await new Promise<void>((resolve) => wake = resolve);
    }
    if (stream.aborted || !reply) return;
    const failed = replyError(reply);
    const rest = failed ? undefined : text.finish(reply.text);
    if (failed || rest === undefined) {
      const error = failed ?? new HttpError(502, "stream_diverged", DIVERGED);
      return void await stream.writeSSE({ data: JSON.stringify(openAIError(error).body) });
    }
    if (rest !== "") await stream.writeSSE(chunk({ content: rest }, null));
    await stream.writeSSE(chunk({}, "stop"));
    if (a.includeUsage) await stream.writeSSE(usageChunk(a, reply));
    await stream.writeSSE({ data: "[DONE]" });
  } catch (error) {
    if (!stream.aborted) await stream.writeSSE({ data: JSON.stringify(openAIError(error).body) });
  }
}

const DIVERGED = "The answer changed after part of it was streamed (an LLM source failed over " +
  "or the turn was interrupted); ask again";

function usageChunk(a: Answer, reply: Reply) {
  return {
    data: JSON.stringify({
      id: `chatcmpl-${a.turn.id}`,
      object: "chat.completion.chunk",
      created: a.created,
      model: a.model,
      choices: [],
      usage: usageOf(a.turn, a.text, reply),
    }),
  };
}

/** The value of `promise` if it has already settled, else undefined (never waits). */
async function settled<T>(promise: Promise<T>): Promise<T | undefined> {
  const pending = Symbol();
  const value = await Promise.race([promise, Promise.resolve(pending)]);
  return value === pending ? undefined : value as T;
}
