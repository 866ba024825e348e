/**
 * One OpenAI-compatible request seen as an agent turn: its content deltas, usage and reply,
 * and what of a streamed answer may still be sent to a client that cannot take text back.
 */
import type { KernelEvent, MediaRef, Reply, Usage } from "../core/mod.ts";
import type { WebDeps } from "./ports.ts";
import { HttpError } from "./_http.ts";

/** The channel OpenAI-compatible requests are answered on. */
export const OPENAI_CHANNEL = "openai";

/** A content delta of the turn; `reset` voids what came before (a fallback or preemption). */
export interface ContentDelta {
  text: string;
  reset: boolean;
}

/** A running turn seen from the endpoint. */
export interface OpenAITurn {
  id: string;
  reply: Promise<Reply>;
  /** Resolves once the turn has content to show or has ended, whichever comes first. */
  started: Promise<void>;
  /** Content deltas from now on; those that came before are replayed first. */
  onContent(handler: (delta: ContentDelta) => void): void;
  /** Provider usage summed over the turn's LLM calls (zero when none reported any). */
  usage(): Usage;
  close(): void;
}

/** Options of startTurn. */
export interface StartTurnOptions {
  remember: boolean;
  /** Aborted when the client goes away: the turn is cancelled. */
  signal: AbortSignal;
  /** Images of the last user message, already stored. */
  media?: MediaRef[];
}

/** Inject `text` as a tool-less turn on the OpenAI channel; throws HttpError when refused. */
export function startTurn(deps: WebDeps, text: string, options: StartTurnOptions): OpenAITurn {
  const replied = Promise.withResolvers<Reply>();
  const started = Promise.withResolvers<void>();
  const usage: Usage = { promptTokens: 0, completionTokens: 0 };
  const backlog: ContentDelta[] = [];
  let handler: ((delta: ContentDelta) => void) | undefined;
  // Known once inject returns; events before that wait in `early`.
  const known: { id?: string } = {};
  const early: KernelEvent[] = [];
  const onEvent = (event: KernelEvent) => {
    if (event.type === "agent_llm_chain" && event.usage) {
      usage.promptTokens += event.usage.promptTokens;
      usage.completionTokens += event.usage.completionTokens;
    }
    if (event.type !== "content_delta") return;
    const delta = { text: event.text, reset: event.reset === true };
    if (delta.text !== "") started.resolve();
    if (handler) handler(delta);
    else backlog.push(delta);
  };
  // Subscribe before injecting, so no event of the turn can be missed.
  const unsubscribe = deps.events((event) => {
    if (!("turnId" in event)) return;
    if (known.id === undefined) early.push(event);
    else if (event.turnId === known.id) onEvent(event);
  });
  const result = deps.chat.inject({
    text,
    channel: OPENAI_CHANNEL,
    ephemeral: !options.remember,
    noTools: true,
    signal: options.signal,
    ...(options.media?.length ? { media: options.media } : {}),
    onReply: (reply) => {
      replied.resolve(reply);
      started.resolve();
    },
  });
  if (!result.accepted) {
    unsubscribe();
    throw new HttpError(429, "refused", result.reason ?? "Input refused");
  }
  const id = known.id = result.inputId;
  for (const event of early.splice(0)) if ("turnId" in event && event.turnId === id) onEvent(event);
  return {
    id,
    reply: replied.promise,
    started: started.promise,
    onContent(h) {
      handler = h;
      for (const delta of backlog.splice(0)) h(delta);
    },
    usage: () => ({ ...usage }),
    close: unsubscribe,
  };
}

/**
 * What of the answer a streaming client has, and what it may be sent next. After a reset the
 * new attempt is sent only past the part the client already has, and only while it agrees
 * with it; an attempt that contradicts it has diverged and sends nothing more.
 */
export class StreamedText {
  #sent = "";
  #attempt = "";
  #diverged = false;

  /** The client's text so far. */
  get sent(): string {
    return this.#sent;
  }

  /** Take a delta; returns what to send now ("" for nothing). */
  push(delta: ContentDelta): string {
    if (delta.reset) {
      this.#attempt = "";
      this.#diverged = false;
    }
    if (this.#diverged || delta.text === "") return "";
    const before = this.#attempt.length;
    this.#attempt += delta.text;
    const end = Math.min(this.#attempt.length, this.#sent.length);
    if (before < end && this.#attempt.slice(before, end) !== this.#sent.slice(before, end)) {
      this.#diverged = true;
      return "";
    }
    if (this.#attempt.length <= this.#sent.length) return "";
    const out = this.#attempt.slice(this.#sent.length);
    this.#sent = this.#attempt;
    return out;
  }

  /** The final answer: the rest to send, or undefined when it contradicts what was sent. */
  finish(full: string): string | undefined {
    if (!full.startsWith(this.#sent)) return undefined;
    const rest = full.slice(this.#sent.length);
    this.#sent = full;
    return rest;
  }
}

/** OpenAI's usage object; without provider figures, an estimate at 4 characters a token. */
export function usageOf(turn: OpenAITurn, text: string, reply: Reply) {
  const u = turn.usage();
  const prompt = u.promptTokens || Math.ceil(text.length / 4);
  const completion = u.completionTokens || Math.ceil(reply.text.length / 4);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}
