/**
 * ProviderManager: calls the configured LLM sources in order with the fallback strategy of
 * ARCHITECTURE.md — one retry of the same source for transient failures, auth failures make
 * a source unusable until its config changes, a user stop is never a provider failure.
 * Per source it also bounds calls in flight (`max_concurrent`), skips a source past its
 * daily token cap, records the usage of every call (failed and stopped ones too), fits each
 * request to the source's own window (refusing, unsent, one that cannot fit), and meets a
 * context overflow with a prune and one retry.
 */
import {
  AbortedError,
  AllProvidersFailedError,
  type ContextLengthDetail,
  ContextLengthError,
  errorMessage,
  NoProviderError,
  ProviderError,
} from "../errors.ts";
import {
  DEFAULT_MAX_CONCURRENT,
  type ProviderFactory,
  type SourceConfig,
  sourceFingerprint,
} from "./sources.ts";
import { type Clock, type Logger, sleep } from "../ports.ts";
import type { ChatRequest, Provider } from "./provider.ts";
import type { TokenCounter, TokenizerFor } from "../prompt/budget.ts";
import { Semaphore } from "./_semaphore.ts";
import type { RequestPruner } from "./request_prune.ts";
import { SourceLimits } from "./_source_limits.ts";
import { visionPlan } from "./_vision.ts";
import type { LlmCaller, LlmCallOptions, LlmCallResult, PruneReason, RequestPlan } from "./call.ts";
import { type Attempt, chatOnce, notify, streamOnce } from "./_provider_call.ts";
import type { UsageLedger } from "./usage.ts";

export {
  fitLimit,
  type PruneInfo,
  pruneRequest,
  type RequestPruner,
  requestTokens,
} from "./request_prune.ts";

/** Window reported when no source is usable. */
const NO_SOURCE_WINDOW = 8192;

/** Options of ProviderManager. */
export interface ProviderManagerOptions {
  clock: Clock;
  logger: Logger;
  /** Enabled sources in `core.llm.order`; re-read on every call, so config changes apply at once. */
  sources: () => SourceConfig[];
  factory: ProviderFactory;
  /** Pause before retrying a source after a transient failure; default 500 ms. */
  retryDelayMs?: number;
  /** Where token usage per source per day goes; also what daily caps are checked against. */
  usage?: UsageLedger;
  /** Shrinks a request on context overflow; default pruneRequest. */
  prune?: RequestPruner;
  /** Token estimate for the overflow guard and for calls without reported usage. */
  countTokens?: TokenCounter;
  /** A source model's own token counter where one is known; else `countTokens` applies. */
  tokenizer?: TokenizerFor;
  /** Tokens a day the calls of a cause may use (`core.llm.causes.<cause>.daily_token_cap`). */
  causeCap?: (cause: string) => number;
  /** How the owner runs the command line, named in the no-source advice (default `homeagent`). */
  command?: string;
  /** A source became unusable (refused its key, or cannot be built) until its config changes. */
  onUnusable?(source: string, error: ProviderError): void;
}

/** The cause of a call that names none. */
export const DEFAULT_CAUSE = "other";

/** How a source is doing, for `status` and the dashboard. */
export interface SourceHealth {
  name: string;
  adapter: string;
  model: string;
  /** "degraded": its last attempt failed; "unusable": skipped until its config changes. */
  state: "ok" | "degraded" | "unusable";
  lastError?: string;
  lastErrorAt?: number;
  calls: number;
  failures: number;
  /** Calls in flight and waiting for a slot, and the slot limit. */
  inFlight: number;
  queued: number;
  maxConcurrent: number;
  vision: boolean;
  audio: boolean;
  /** Prompt + completion tokens today (local day), and the cap (0 = none). */
  tokensToday: number;
  dailyTokenCap: number;
}

interface Entry {
  fingerprint: string;
  provider?: Provider;
  /** Set when the source may not be used until its fingerprint changes. */
  unusable?: ProviderError;
  lastFailed: boolean;
  lastError?: string;
  lastErrorAt?: number;
  calls: number;
  failures: number;
  slots: Semaphore;
}

/** A source's outcome: an attempt, a request refused unsent (it cannot fit), or no provider. */
type Outcome =
  | Attempt
  | { ok: false; error: ProviderError; refused?: ContextLengthDetail };

/** Calls LLM sources in order with retry and fallback, and records their health. */
export class ProviderManager implements LlmCaller {
  #options: ProviderManagerOptions;
  #entries = new Map<string, Entry>();
  #limits: SourceLimits;

  constructor(options: ProviderManagerOptions) {
    this.#options = options;
    this.#limits = new SourceLimits(options);
  }

  /** True when at least one source is configured. */
  hasSources(): boolean {
    return this.#options.sources().length > 0;
  }

  /** The context window of the first usable source; 8192 when there is none. */
  maxContextTokens(): number {
    for (const source of this.#options.sources()) {
      const entry = this.#entry(source);
      if (entry.provider && !entry.unusable) return entry.provider.maxContextTokens();
    }
    return NO_SOURCE_WINDOW;
  }

  /** Health of every configured source, in order. */
  health(): SourceHealth[] {
    return this.#options.sources().map((source) => {
      const entry = this.#entry(source);
      return {
        name: source.name,
        adapter: source.adapter,
        model: source.model,
        state: entry.unusable ? "unusable" : entry.lastFailed ? "degraded" : "ok",
        ...(entry.lastError !== undefined
          ? { lastError: entry.lastError, lastErrorAt: entry.lastErrorAt }
          : {}),
        calls: entry.calls,
        failures: entry.failures,
        inFlight: entry.slots.active,
        queued: entry.slots.waiting,
        maxConcurrent: source.maxConcurrent ?? DEFAULT_MAX_CONCURRENT,
        vision: source.vision ?? false,
        audio: source.audio ?? false,
        tokensToday: this.#limits.tokensToday(source.name),
        dailyTokenCap: source.dailyTokenCap ?? 0,
      };
    });
  }

  /**
   * Answer `request` from the first source that can; a builder builds it for each source's own
   * window. Throws NoProviderError without sources, UsageCapError when the call's cause used
   * up its daily cap (nothing sent), AbortedError when `signal` aborts,
   * ContextLengthError when no source can fit it (nothing was sent), else
   * AllProvidersFailedError naming each source's failure.
   */
  async call(request: RequestPlan, options: LlmCallOptions = {}): Promise<LlmCallResult> {
    const sources = this.#options.sources();
    if (sources.length === 0) throw new NoProviderError(this.#options.command);
    const capped = this.#limits.causeCapFailure(options.cause ?? DEFAULT_CAUSE);
    if (capped) {
      this.#options.logger.warn(capped.message, { cause: capped.usageCause });
      throw capped;
    }
    const started = this.#options.clock.monotonic();
    const failures: ProviderError[] = [];
    const refusals: ContextLengthDetail[] = [];
    const candidates = sources.map((source) => ({ source, entry: this.#entry(source) }));
    for (const [i, { source, entry }] of candidates.entries()) {
      if (entry.unusable) {
        failures.push(entry.unusable);
        continue;
      }
      const capped = this.#limits.capFailure(source);
      if (capped) {
        failures.push(capped);
        this.#options.logger.warn(capped.message, { source: source.name });
        continue;
      }
      const outcome = await this.#trySource(source, entry, request, options, started);
      if (outcome.ok) {
        return {
          response: outcome.response,
          source: source.name,
          model: outcome.response.model || source.model,
          durationMs: this.#options.clock.monotonic() - started,
          ...(outcome.firstTokenMs !== undefined ? { firstTokenMs: outcome.firstTokenMs } : {}),
        };
      }
      failures.push(outcome.error);
      if ("refused" in outcome && outcome.refused) refusals.push(outcome.refused);
      this.#fallback(source, outcome.error, candidates.slice(i + 1), options);
    }
    if (refusals.length > 0 && refusals.length === failures.length) {
      // Too long for every source, and each had room for nothing but its fixed part.
      throw new ContextLengthError(refusals.reduce((a, b) => b.limit > a.limit ? b : a));
    }
    throw new AllProvidersFailedError(failures);
  }

  /** Log a source's failure and tell the listener which source is tried next. */
  #fallback(
    source: SourceConfig,
    error: ProviderError,
    rest: { source: SourceConfig; entry: Entry }[],
    options: LlmCallOptions,
  ): void {
    const next = rest.find((c) => !c.entry.unusable && !this.#limits.capFailure(c.source))
      ?.source.name;
    this.#options.logger.warn(`LLM source "${source.name}" failed`, {
      source: source.name,
      kind: error.kind,
      status: error.status,
      error: error.message,
      next,
    });
    notify(this.#options.logger, () => options.listener?.onFallback?.(source.name, next, error));
  }

  /**
   * One source: the request fitted to its window (or refused unsent), then, holding one of its
   * `max_concurrent` slots, a first attempt; for a transient failure one retry after the
   * delay; for a context overflow one retry of a pruned request.
   */
  async #trySource(
    source: SourceConfig,
    entry: Entry,
    asked: RequestPlan,
    options: LlmCallOptions,
    started: number,
  ): Promise<Outcome> {
    const plan = visionPlan(asked, source.vision ?? false);
    const provider = entry.provider;
    if (!provider) return { ok: false, error: entry.unusable ?? this.#unbuilt(source) };
    const onPrune = (reason: PruneReason, before: number, after: number) =>
      notify(
        this.#options.logger,
        () => options.listener?.onPrune?.(provider.name, reason, before, after),
      );
    const fitted = await this.#limits.fit(provider, plan, onPrune);
    if (!fitted.ok) return { ok: false, error: fitted.error, refused: fitted.detail };
    entry.slots.limit = source.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
    const release = await entry.slots.acquire(options.signal);
    try {
      let sent = fitted.request;
      const at = { source, entry, options, started };
      let attempt = await this.#attempt(provider, sent, at);
      if (!attempt.ok && attempt.error.kind === "overflow") {
        const smaller = await this.#limits.refit(provider, plan, sent, onPrune);
        if (smaller) {
          sent = smaller;
          attempt = await this.#attempt(provider, sent, at);
        }
      } else if (!attempt.ok && attempt.error.retryable) {
        const delay = this.#options.retryDelayMs ?? 500;
        try {
          if (delay > 0) await sleep(this.#options.clock, delay, options.signal);
        } catch (error) {
          throw new AbortedError("LLM call aborted", { cause: error });
        }
        attempt = await this.#attempt(provider, sent, at);
      }
      return attempt;
    } finally {
      release();
    }
  }

  /**
   * One HTTP call of one provider, recorded in its health and (whatever its outcome) in the
   * usage ledger. Throws AbortedError on stop.
   */
  async #attempt(
    provider: Provider,
    request: ChatRequest,
    at: { source: SourceConfig; entry: Entry; options: LlmCallOptions; started: number },
  ): Promise<Attempt> {
    const { entry, options, started } = at;
    const { signal } = options;
    if (signal?.aborted) throw new AbortedError("LLM call aborted", { cause: signal.reason });
    const { clock, logger } = this.#options;
    const attempt = options.stream === false
      ? await chatOnce(provider, request, signal)
      : await streamOnce(provider, request, { ...options, clock, logger, started });
    this.#limits.record(at.source, provider, {
      request,
      spend: attempt.spend,
      cause: options.cause ?? DEFAULT_CAUSE,
    });
    if (signal?.aborted || (!attempt.ok && attempt.error.kind === "cancelled")) {
      throw new AbortedError("LLM call aborted", { cause: signal?.reason });
    }
    entry.calls++;
    if (attempt.ok) {
      entry.lastFailed = false;
      return attempt;
    }
    if (attempt.partial) {
      notify(this.#options.logger, () => options.listener?.onReset?.(provider.name));
    }
    entry.failures++;
    entry.lastFailed = true;
    entry.lastError = attempt.error.message;
    entry.lastErrorAt = this.#options.clock.now();
    if (attempt.error.kind === "auth") this.#unusable(provider.name, entry, attempt.error);
    return attempt;
  }

  /** The entry of `source`, with its provider rebuilt when its config changed. */
  #entry(source: SourceConfig): Entry {
    const fingerprint = sourceFingerprint(source);
    let entry = this.#entries.get(source.name);
    if (!entry) {
      entry = {
        fingerprint: "",
        lastFailed: false,
        calls: 0,
        failures: 0,
        slots: new Semaphore(source.maxConcurrent ?? DEFAULT_MAX_CONCURRENT),
      };
      this.#entries.set(source.name, entry);
    }
    if (entry.fingerprint === fingerprint && (entry.provider || entry.unusable)) return entry;
    entry.fingerprint = fingerprint;
    entry.unusable = undefined;
    entry.lastFailed = false;
    try {
      entry.provider = this.#options.factory(source);
    } catch (error) {
      // A source that cannot be built (unknown adapter, bad URL) waits for its config to change.
      entry.provider = undefined;
      entry.unusable = new ProviderError(
        source.name,
        "bad_request",
        `Source "${source.name}" cannot be used: ${errorMessage(error)}`,
        { cause: error },
      );
      entry.lastError = entry.unusable.message;
      entry.lastErrorAt = this.#options.clock.now();
      this.#unusable(source.name, entry, entry.unusable);
    }
    return entry;
  }

  #unusable(source: string, entry: Entry, error: ProviderError): void {
    entry.unusable = error;
    notify(this.#options.logger, () => this.#options.onUnusable?.(source, error));
  }

  #unbuilt(source: SourceConfig): ProviderError {
    return new ProviderError(source.name, "bad_request", `Source "${source.name}" is not built`);
  }
}
