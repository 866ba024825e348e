/** Set-up shared by the native HTTP clients. */
import { type Clock, type Logger, silentLogger, type SourceConfig } from "../core/mod.ts";
import { DEFAULT_TIMEOUT_MS, endpoint, type HttpTarget } from "./_http.ts";
import { contextWindowFor } from "./model_windows.ts";
import { systemClock } from "./system_clock.ts";

/** Options shared by the native clients; every field has a production default. */
export interface NativeClientOptions {
  /** Timers for the timeouts; default systemClock. */
  clock?: Clock;
  /** Receives the unknown-model warning; default silent. */
  logger?: Logger;
  /** HTTP client; default globalThis.fetch. */
  fetch?: typeof fetch;
  /** Longest wait for response headers; default 60000 ms. */
  requestTimeoutMs?: number;
  /** Longest silence between body chunks; default 60000 ms. */
  idleTimeoutMs?: number;
  /** Most bytes of one answer; default MAX_ANSWER_BYTES (64 MiB). */
  maxBodyBytes?: number;
}

/** The HTTP target of `source` at `path`, with Bearer auth when it has an API key. */
export function clientTarget(
  source: SourceConfig,
  path: string,
  options: NativeClientOptions,
): HttpTarget {
  return {
    source: source.name,
    url: endpoint(source.baseUrl, path),
    headers: source.apiKey ? { authorization: `Bearer ${source.apiKey}` } : {},
    clock: options.clock ?? systemClock,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
  };
}

/** A memoised context-window lookup, so the unknown-model warning is logged once per client. */
export function windowOf(source: SourceConfig, options: NativeClientOptions): () => number {
  let window: number | undefined;
  return () =>
    window ??= contextWindowFor(source.model, {
      declared: source.contextWindow,
      logger: (options.logger ?? silentLogger).child({ source: source.name }),
    });
}
