/**
 * The LLM call contract: what a turn (and a child agent) needs from the provider layer, kept
 * apart from ProviderManager, which implements it, so the kernel loop and its fakes depend on
 * this file only.
 */
import type { ProviderError } from "../errors.ts";
import type { TokenCounter } from "../prompt/budget.ts";
import type { ChatRequest, ChatResponse, StreamEvent } from "./provider.ts";

/** What a request is built for: one source's window, its counter and the size to stay within. */
export interface RequestFit {
  source: string;
  /** The source's window in tokens. */
  window: number;
  /** The most tokens memory and timeline may bring the request to. */
  targetTokens: number;
  /** Counts tokens as this source's model does (its tokenizer, else the calibrated estimate). */
  count: TokenCounter;
}

/**
 * Builds the request of one attempt for a source (the turn assembles its prompt this way, so
 * each source's own window applies). Must not throw; called once or twice per source.
 */
export type RequestBuilder = (fit: RequestFit) => ChatRequest;

/** A request as the caller hands it over: ready, or built per source. */
export type RequestPlan = ChatRequest | RequestBuilder;

/** Why a request is pruned: the source refused it, or the guard saw it would not fit. */
export type PruneReason = "overflow" | "guard";

/** Observes one call. Exceptions thrown by a listener are logged and otherwise ignored. */
export interface LlmCallListener {
  /** Every stream event except `error`, tagged with the source producing it. */
  onEvent?(source: string, event: StreamEvent): void;
  /** `from` failed; `to` is the next source tried, undefined when none is left. */
  onFallback?(from: string, to: string | undefined, error: ProviderError): void;
  /** Deltas already delivered from `source` are void: it failed mid-stream and is retried. */
  onReset?(source: string): void;
  /** The request was pruned for `source` (refused as too long, or over the guard). */
  onPrune?(source: string, reason: PruneReason, tokensBefore: number, tokensAfter: number): void;
}

/** Options of one call. */
export interface LlmCallOptions {
  signal?: AbortSignal;
  listener?: LlmCallListener;
  /** Stream the answer (default true). */
  stream?: boolean;
  /** What made the call: usage is kept and capped by it (the manager's DEFAULT_CAUSE if absent). */
  cause?: string;
}

/** The answer of a call and where it came from; times are measured from the call's start. */
export interface LlmCallResult {
  response: ChatResponse;
  source: string;
  model: string;
  durationMs: number;
  firstTokenMs?: number;
}

/**
 * Answers a request from the first LLM source that can. A builder `request` is built for each
 * source tried, with that source's window. `call` rejects with NoProviderError without
 * sources; with an abort error (AbortedError) once `signal` aborts, and stops its IO then;
 * with ContextLengthError when the request fits no source (nothing was sent); else with
 * AllProvidersFailedError naming each source's failure.
 */
export interface LlmCaller {
  call(request: RequestPlan, options?: LlmCallOptions): Promise<LlmCallResult>;
}
