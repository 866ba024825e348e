/**
 * OpenAI-compatible `POST /v1/chat/completions` (stream and not) and `GET /v1/models`: existing
 * OpenAI clients talk to the agent, which answers with its memory but without tools. A request
 * stays out of memory (an ephemeral input: not written to the context window) unless it asks to
 * be remembered with the header `X-HomeAgent-Remember: 1` or the body field `"remember": true`.
 */
import type { Env, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import type { KernelEvent, Reply, Usage } from "../core/mod.ts";
import type { WebDeps } from "./ports.ts";
import { HttpError, parseBody } from "./_http.ts";

/** The channel OpenAI-compatible requests are answered on. */
export const OPENAI_CHANNEL = "openai";

const Part = z.object({ type: z.string(), text: z.string().optional() }).passthrough();
const Message = z.object({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(Part), z.null()]).optional(),
  name: z.string().optional(),
}).passthrough();
const CompletionBody = z.object({
  model: z.string().max(200).optional(),
  messages: z.array(Message).min(1).max(500),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().optional(),
  remember: z.boolean().optional(),
}).passthrough();
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
export function inputText(messages: CompletionBody["messages"]): string {
  let last = -1;
  messages.forEach((m, i) => {
    if (m.role === "user") last = i;
  });
  if (last < 0) throw new HttpError(400, "bad_request", "messages: no user message");
  const question = contentOf(messages[last]!);
  if (question.trim() === "") {
    throw new HttpError(400, "bad_request", "messages: empty user message");
  }
  const before = messages.slice(0, last).map((m) => `${m.role}: ${contentOf(m)}`);
  if (before.length === 0) return question;
  return `[Earlier in this conversation]\n${before.join("\n")}\n\n[Now]\n${question}`;
}

/** A running turn seen from the endpoint: its deltas and usage, and its reply. */
interface Turn {
  id: string;
  reply: Promise<Reply>;
  /** Events of this turn from now on (deltas, agent_llm_chain). */
  onEvent(handler: (event: KernelEvent) => void): void;
  usage(): Usage;
  close(): void;
}

function startTurn(deps: WebDeps, text: string, remember: boolean): Turn {
  const replied = Promise.withResolvers<Reply>();
  const early: KernelEvent[] = [];
  const known: { id?: string } = {};
  let handler: ((event: KernelEvent) => void) | undefined;
  const usage: Usage = { promptTokens: 0, completionTokens: 0 };
  // Subscribe before injecting, so no event of the turn can be missed.
  const unsubscribe = deps.events((event) => {
    if (!("turnId" in event)) return;
    if (known.id === undefined) return void early.push(event);
    if (event.turnId !== known.id) return;
    if (event.type === "agent_llm_chain" && event.usage) {
      usage.promptTokens += event.usage.promptTokens;
      usage.completionTokens += event.usage.completionTokens;
    }
    handler?.(event);
  });
  const result = deps.chat.inject({
    text,
    channel: OPENAI_CHANNEL,
    ephemeral: !remember,
    noTools: true,
    onReply: replied.resolve,
  });
  if (!result.accepted) {
    unsubscribe();
    throw new HttpError(503, "refused", result.reason ?? "Input refused");
  }
  const id = known.id = result.inputId;
  const pending = early.filter((e) => "turnId" in e && e.turnId === id);
  return {
    id,
    reply: replied.promise,
    onEvent(h) {
      handler = h;
      for (const event of pending.splice(0)) h(event);
    },
    usage: () => ({ ...usage }),
    close: unsubscribe,
  };
}

function usageOf(turn: Turn, text: string, reply: Reply) {
  const u = turn.usage();
  // No provider usage (no source configured, or a refusal): estimate at 4 characters a token.
  const prompt = u.promptTokens || Math.ceil(text.length / 4);
  const completion = u.completionTokens || Math.ceil(reply.text.length / 4);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

/** Mount `/v1/models` and `/v1/chat/completions` on `app` (behind its auth). */
export function mountOpenAI<E extends Env>(app: Hono<E>, deps: WebDeps): void {
  const model = deps.modelName ?? "homeagent";
  app.get("/v1/models", (c) =>
    c.json({
      object: "list",
      data: [{ id: model, object: "model", created: 0, owned_by: "homeagent" }],
    }));

  app.post("/v1/chat/completions", async (c) => {
    const body = await parseBody(c, CompletionBody);
    const text = inputText(body.messages);
    const remember = body.remember === true || c.req.header("x-homeagent-remember") === "1";
    const turn = startTurn(deps, text, remember);
    const id = `chatcmpl-${turn.id}`;
    const created = Math.floor(deps.clock.now() / 1000);
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created,
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      });

    if (body.stream !== true) {
      try {
        const reply = await turn.reply;
        if (reply.status === "error" || reply.status === "refused") {
          throw new HttpError(502, reply.errorCode ?? "agent_error", reply.text);
        }
        return c.json({
          id,
          object: "chat.completion",
          created,
          model,
          choices: [{
            index: 0,
            message: { role: "assistant", content: reply.text },
            finish_reason: "stop",
          }],
          usage: usageOf(turn, text, reply),
        });
      } finally {
        turn.close();
      }
    }

    return streamSSE(c, async (stream) => {
      let sent = "";
      let reset = false;
      const queue: string[] = [];
      let wake: (() => void) | undefined;
      turn.onEvent((event) => {
        if (event.type !== "content_delta") return;
        // A fallback or preemption voids what was streamed; what follows arrives with the reply.
        if (event.reset) reset = true;
        if (reset || event.text === "") return;
        queue.push(event.text);
        wake?.();
      });
      let done = false;
      turn.reply.then(() => {
        done = true;
        wake?.();
      });
      try {
        await stream.writeSSE({ data: chunk({ role: "assistant", content: "" }, null) });
        while (!stream.aborted) {
          while (queue.length > 0) {
            const piece = queue.shift()!;
            sent += piece;
            await stream.writeSSE({ data: chunk({ content: piece }, null) });
          }
          if (done) break;
          await new Promise<void>((resolve) => wake = resolve);
          wake = undefined;
        }
        const reply = await turn.reply;
        const rest = reply.text.startsWith(sent) ? reply.text.slice(sent.length) : reply.text;
        if (rest !== "") {
          await stream.writeSSE({ data: chunk({ content: rest }, null) });
        }
        await stream.writeSSE({ data: chunk({}, "stop") });
        if (body.stream_options?.include_usage) {
          await stream.writeSSE({
            data: JSON.stringify({
              id,
              object: "chat.completion.chunk",
              created,
              model,
              choices: [],
              usage: usageOf(turn, text, reply),
            }),
          });
        }
        await stream.writeSSE({ data: "[DONE]" });
      } finally {
        turn.close();
      }
    });
  });
}
