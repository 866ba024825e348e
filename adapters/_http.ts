/**
 * HTTP plumbing shared by the native clients: one POST with a headers timeout, an idle
 * timeout while reading the body, the caller's cancellation, and the mapping of every
 * failure to a ProviderError whose message names the source, the host and the cause.
 */
import {
  type ChatResponse,
  type Clock,
  ProviderError,
  type ProviderFailureKind,
  type StreamEvent,
} from "../core/mod.ts";
import { BodyReader } from "./_body_reader.ts";

/** Where and how one source is called. */
export interface HttpTarget {
  source: string;
  url: string;
  headers: Record<string, string>;
  clock: Clock;
  fetch: typeof fetch;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  /** Most bytes one answer may send; more fails the call (default MAX_ANSWER_BYTES). */
  maxBodyBytes?: number;
}

/** A request body that is already JSON text (a Lua adapter's output): sent as is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** Default wait for response headers, and for the next body chunk. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Most bytes of one answer. The source is outside code: a server that never ends its stream
 * (chunks inside the idle timeout) would otherwise grow the answer, and the daemon, for ever.
 * 64 MiB is about 250,000 streamed tokens at OpenAI's ~250 bytes of SSE per token.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** Most bytes of an error body kept: its message is cut to 300 characters anyway. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Provider messages that mean "the prompt does not fit the model's window". */
export const OVERFLOW =
  /context_length_exceeded|maximum context length|prompt is too long|context window|exceeds the context|input token count.*exceeds|exceeds the maximum number of tokens|too many tokens|reduce the length of the messages/i;

/** Builds the one-sentence errors of one source. */
export class SourceFailures {
  readonly source: string;
  readonly host: string;

  constructor(source: string, url: string) {
    this.source = source;
    this.host = hostOf(url);
  }

  /** A ProviderError of `kind` whose message continues `Source "x" (host) `. */
  make(
    kind: ProviderFailureKind,
    predicate: string,
    options?: { status?: number; cause?: unknown },
  ) {
    return new ProviderError(
      this.source,
      kind,
      `Source "${this.source}" (${this.host}) ${predicate}`,
      options,
    );
  }

  /** The error for a non-2xx answer, classified by status and body. */
  status(status: number, body: string): ProviderError {
    const message = providerMessage(body);
    const said = message ? `: ${message}` : "";
    return this.make(statusKind(status, body), `answered ${status}${said}`, { status });
  }

  /** The error for an error object the provider sent inside a 200 body or stream. */
  reported(message: string): ProviderError {
    const kind = OVERFLOW.test(message) ? "overflow" : "server";
    return this.make(kind, `reported an error: ${oneLine(message)}`);
  }

  /** The error for a body that could not be parsed. */
  malformed(what: string, sample?: string): ProviderError {
    const tail = sample === undefined ? "" : `: ${JSON.stringify(oneLine(sample).slice(0, 80))}`;
    return this.make("malformed", `sent ${what}${tail}`);
  }

  /** The cancellation error. */
  cancelled(cause?: unknown): ProviderError {
    return this.make("cancelled", "call was cancelled", { cause });
  }
}

/** An HTTP exchange that has received its (2xx) headers; read its body once, then close. */
export class HttpExchange {
  readonly response: Response;
  readonly failures: SourceFailures;
  #target: HttpTarget;
  #controller: AbortController;
  #signal?: AbortSignal;
  #stalled = false;
  #release: () => void;

  private constructor(
    target: HttpTarget,
    response: Response,
    controller: AbortController,
    signal: AbortSignal | undefined,
    release: () => void,
  ) {
    this.#target = target;
    this.response = response;
    this.failures = new SourceFailures(target.source, target.url);
    this.#controller = controller;
    this.#signal = signal;
    this.#release = release;
  }

  /** POST `body` as JSON (GET if undefined); resolves on 2xx headers, else ProviderError. */
  static async open(
    target: HttpTarget,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<HttpExchange> {
    const failures = new SourceFailures(target.source, target.url);
    if (signal?.aborted) throw failures.cancelled(signal.reason);
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const release = () => signal?.removeEventListener("abort", onAbort);
    let timedOut = false;
    const timer = target.clock.setTimer(target.requestTimeoutMs, () => {
      timedOut = true;
      controller.abort(new DOMException("Response headers timed out", "TimeoutError"));
    });
    let response: Response;
    try {
      response = await target.fetch(
        target.url,
        body === undefined ? { headers: target.headers, signal: controller.signal } : {
          method: "POST",
          headers: { "content-type": "application/json", ...target.headers },
          body: body instanceof JsonText ? body.text : JSON.stringify(body),
          signal: controller.signal,
        },
      );
    } catch (error) {
      release();
      if (signal?.aborted) throw failures.cancelled(error);
      if (timedOut) {
        throw failures.make("timeout", `sent no response within ${target.requestTimeoutMs} ms`, {
          cause: error,
        });
      }
      throw failures.make("network", `could not be reached: ${networkReason(error)}`, {
        cause: error,
      });
    } finally {
      timer.cancel();
    }
    const exchange = new HttpExchange(target, response, controller, signal, release);
    if (response.ok) return exchange;
    let text = "";
    try {
      text = await exchange.text(MAX_ERROR_BODY_BYTES);
    } catch (error) {
      if (error instanceof ProviderError && error.kind === "cancelled") throw error;
    }
    throw failures.status(response.status, text);
  }

  /** The body as decoded text chunks; throws ProviderError on stall, cut or cancel. */
  async *chunks(): AsyncGenerator<string> {
    const body = this.response.body;
    if (!body) return this.close();
    const reader = new BodyReader(body);
    const decoder = new TextDecoder();
    const limit = this.#target.maxBodyBytes ?? MAX_ANSWER_BYTES;
    let bytes = 0;
    let finished = false;
    try {
      for (;;) {
        const { done, value } = await this.#read(reader);
        if (done) {
          finished = true;
          const tail = decoder.decode();
          if (tail) yield tail;
          return;
        }
        bytes += value.length;
        if (bytes > limit) {
          throw this.failures.make(
            "malformed",
            `sent more than ${limit} bytes in one answer, so it was cut off there (a server that does not end its stream)`,
          );
        }
        const text = decoder.decode(value, { stream: true });
        if (text) yield text;
      }
    } finally {
      if (!finished) await reader.cancel().catch(() => {});
      reader.releaseLock();
      this.#release();
    }
  }

  /** The whole body as text; with `keep`, only its first `keep` characters (the rest unread). */
  async text(keep = Infinity): Promise<string> {
    let text = "";
    for await (const chunk of this.chunks()) {
      text += chunk;
      if (text.length >= keep) return text.slice(0, keep);
    }
    return text;
  }

  /** Give up on the body (idempotent); needed only when it was not read to the end. */
  close(): void {
    this.#release();
    if (this.response.body && !this.response.bodyUsed) {
      this.response.body.cancel().catch(() => {});
    }
  }

  async #read(reader: BodyReader): Promise<ReadableStreamReadResult<Uint8Array>> {
    const timer = this.#target.clock.setTimer(this.#target.idleTimeoutMs, () => {
      this.#stalled = true;
      this.#controller.abort(new DOMException("Response body stalled", "TimeoutError"));
    });
    try {
      return await reader.read();
    } catch (error) {
      if (this.#signal?.aborted) throw this.failures.cancelled(error);
      if (this.#stalled) {
        throw this.failures.make(
          "timeout",
          `stalled for more than ${this.#target.idleTimeoutMs} ms mid-response`,
          { cause: error },
        );
      }
      throw this.failures.make(
        "network",
        `dropped the connection mid-response: ${networkReason(error)}`,
        {
          cause: error,
        },
      );
    } finally {
      timer.cancel();
    }
  }
}

/** Coerce anything thrown while talking to a source into a ProviderError. */
export function asProviderError(
  error: unknown,
  failures: SourceFailures,
  signal?: AbortSignal,
): ProviderError {
  if (signal?.aborted) {
    return error instanceof ProviderError && error.kind === "cancelled"
      ? error
      : failures.cancelled(error);
  }
  if (error instanceof ProviderError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return failures.make("malformed", `could not be handled: ${oneLine(reason)}`, { cause: error });
}

/** Turns an open exchange into stream events, returning the final response. */
export type StreamReader = (exchange: HttpExchange) => AsyncGenerator<StreamEvent, ChatResponse>;

/** One streamed call: events from `read`, then exactly one `done` or `error`; never throws. */
export async function* streamCall(
  target: HttpTarget,
  body: unknown,
  read: StreamReader,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  let exchange: HttpExchange | undefined;
  try {
    exchange = await HttpExchange.open(target, body, signal);
    const response = yield* read(exchange);
    yield { type: "done", response };
  } catch (error) {
    const failures = new SourceFailures(target.source, target.url);
    yield { type: "error", error: asProviderError(error, failures, signal) };
  } finally {
    exchange?.close();
  }
}

/** One non-streamed call: the whole body handed to `parse`; rejects with ProviderError. */
export async function chatCall(
  target: HttpTarget,
  body: unknown,
  parse: (text: string, failures: SourceFailures) => ChatResponse,
  signal?: AbortSignal,
): Promise<ChatResponse> {
  const failures = new SourceFailures(target.source, target.url);
  let exchange: HttpExchange | undefined;
  try {
    exchange = await HttpExchange.open(target, body, signal);
    return parse(await exchange.text(), failures);
  } catch (error) {
    throw asProviderError(error, failures, signal);
  } finally {
    exchange?.close();
  }
}

/** Join a base URL (trailing slashes dropped) and an endpoint path. */
export function endpoint(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, "") + path;
}

/** Parse JSON text, or throw the source's malformed error naming `what`. */
export function parseJson(text: string, failures: SourceFailures, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw failures.malformed(`${what} that is not valid JSON`, text);
  }
}

function statusKind(status: number, body: string): ProviderFailureKind {
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate_limit";
  if (OVERFLOW.test(body)) return "overflow";
  if (status === 408) return "timeout";
  if (status >= 500) return "server";
  return "bad_request";
}

/** The provider's own error message from an error body, or the body itself, shortened. */
function providerMessage(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    const found = pickMessage(parsed);
    if (found) return oneLine(found).slice(0, 300);
  } catch {
    // not JSON: use the text
  }
  return oneLine(body).slice(0, 300);
}

function pickMessage(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (!value || typeof value !== "object") return undefined;
  const record = value as Record<string, unknown>;
  for (const key of ["error", "message", "detail"]) {
    const found = pickMessage(record[key]);
    if (found) return found;
  }
  return undefined;
}

function networkReason(error: unknown): string {
  let deepest = error;
  while (deepest instanceof Error && deepest.cause instanceof Error) deepest = deepest.cause;
  const text = deepest instanceof Error ? deepest.message : String(deepest);
  const os = /(?:error: )?([A-Z][^:()]*?) \(os error \d+\)/.exec(text);
  return oneLine(os?.[1] ?? text);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
