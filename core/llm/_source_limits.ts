/**
 * The per-source rules of ProviderManager that are not about retry: fitting a request to the
 * source's window (build, prune, or refuse), usage recording by source and cause, and the
 * daily token caps of sources and causes.
 */
import { computeTokenBudget, type TokenCounter, type TokenizerFor } from "../prompt/budget.ts";
import { estimateTokens } from "../prompt/estimate.ts";
import { type ContextLengthDetail, errorMessage, ProviderError, UsageCapError } from "../errors.ts";
import type { SourceConfig } from "./sources.ts";
import type { Clock, Logger } from "../ports.ts";
import type { ChatRequest, Provider, Usage } from "./provider.ts";
import { fitLimit, pruneRequest, type RequestPruner, requestTokens } from "./request_prune.ts";
import type { PruneReason, RequestFit, RequestPlan } from "./call.ts";
import { dayOf, usageCost, type UsageLedger } from "./usage.ts";

/** What SourceLimits needs (a subset of ProviderManagerOptions). */
export interface SourceLimitsOptions {
  clock: Clock;
  logger: Logger;
  usage?: UsageLedger;
  prune?: RequestPruner;
  countTokens?: TokenCounter;
  tokenizer?: TokenizerFor;
  /** Tokens a day the calls of a cause may use; 0: no cap. */
  causeCap?: (cause: string) => number;
}

/** Told when a request was pruned. */
export type PruneListener = (reason: PruneReason, before: number, after: number) => void;

/** A request fitted to one source's window, or the refusal when it cannot fit. */
export type Fitted =
  | { ok: true; request: ChatRequest }
  | { ok: false; error: ProviderError; detail: ContextLengthDetail };

/** What one call consumed, as far as the client saw it. */
export interface CallSpend {
  /** Usage the server reported, if it did. */
  usage?: Usage;
  /** Generated output that arrived: text, reasoning, tool names and arguments. */
  output: string;
  /** The server had the prompt (it answered, streamed, or was stopped or timed out working). */
  promptSent: boolean;
}

/** Fitting, usage and caps of every source. */
export class SourceLimits {
  #options: SourceLimitsOptions;
  #count: TokenCounter;

  constructor(options: SourceLimitsOptions) {
    this.#options = options;
    this.#count = options.countTokens ?? estimateTokens;
  }

  /** The counter of `provider`'s model: its tokenizer when known, else the default counter. */
  counter(provider: Pick<Provider, "model">): TokenCounter {
    return this.#options.tokenizer?.(provider.model) ?? this.#count;
  }

  /**
   * `plan` for `provider`: built for its window (memory and timeline within the working band);
   * over the window, pruned; still over it (the persona, the user's messages and the tool
   * schemas alone do not fit), refused without sending.
   */
  async fit(provider: Provider, plan: RequestPlan, onPrune: PruneListener): Promise<Fitted> {
    const window = provider.maxContextTokens();
    const targetTokens = computeTokenBudget(window, 0).target;
    const count = this.counter(provider);
    let request = build(plan, { source: provider.name, window, targetTokens, count });
    const limit = fitLimit(window, request);
    let tokens = requestTokens(request, count);
    if (tokens <= limit) return { ok: true, request };
    request = await this.#prune(provider, request, "guard", onPrune);
    tokens = requestTokens(request, count);
    if (tokens <= limit) return { ok: true, request };
    const n = (x: number) => x.toLocaleString("en-US");
    this.#options.logger.warn(`Request refused: it does not fit source "${provider.name}"`, {
      source: provider.name,
      window,
      limit,
      tokens,
    });
    const error = new ProviderError(
      provider.name,
      "overflow",
      `Source "${provider.name}" cannot take the request: it needs about ${n(tokens)} tokens ` +
        `with context and memory left out, more than its window allows (${n(limit)}); not sent`,
    );
    return { ok: false, error, detail: { tokens, limit } };
  }

  /**
   * After `provider` refused `sent` as too long: a smaller request aiming at 0.8× its window and
   * 0.75× the size sent, built anew when `plan` is a builder, then pruned. Undefined when
   * nothing could go (sending it again would only fail again).
   */
  async refit(
    provider: Provider,
    plan: RequestPlan,
    sent: ChatRequest,
    onPrune: PruneListener,
  ): Promise<ChatRequest | undefined> {
    const count = this.counter(provider);
    const before = requestTokens(sent, count);
    const window = provider.maxContextTokens();
    const targetTokens = Math.floor(Math.min(window * 0.8, before * 0.75));
    const rebuilt = typeof plan === "function"
      ? plan({ source: provider.name, window, targetTokens, count })
      : sent;
    const pruned = await this.#prune(provider, rebuilt, "overflow", onPrune, before);
    return requestTokens(pruned, count) < before ? pruned : undefined;
  }

  /** Pruned towards 0.8× the window and 0.75× `before` (default: its own size). */
  async #prune(
    provider: Provider,
    request: ChatRequest,
    reason: PruneReason,
    onPrune: PruneListener,
    before = requestTokens(request, this.counter(provider)),
  ): Promise<ChatRequest> {
    const count = this.counter(provider);
    const window = provider.maxContextTokens();
    const targetTokens = Math.floor(Math.min(window * 0.8, before * 0.75));
    const prune = this.#options.prune ?? pruneRequest;
    const pruned = requestTokens(request, count) > targetTokens
      ? await prune(request, { source: provider.name, reason, window, targetTokens, count })
      : request;
    const after = requestTokens(pruned, count);
    this.#options.logger.warn(`Request pruned to fit source "${provider.name}"`, {
      source: provider.name,
      reason,
      window,
      tokensBefore: before,
      tokensAfter: after,
    });
    onPrune(reason, before, after);
    return pruned;
  }

  /**
   * Add what one call consumed, under its cause: the server's usage, else an estimate from the
   * prompt sent and the output received (marked estimated); nothing when the prompt never
   * reached the server. Failed and stopped calls count too, so daily caps hold. Priced at the
   * source's prices when it has any. Never throws.
   */
  record(
    source: SourceConfig,
    provider: Pick<Provider, "name" | "model">,
    call: { request: ChatRequest; spend: CallSpend; cause: string },
  ): void {
    const ledger = this.#options.usage;
    if (!ledger) return;
    const { request, spend } = call;
    const count = this.counter(provider);
    const usage = spend.usage ?? (spend.promptSent || spend.output !== ""
      ? {
        promptTokens: requestTokens(request, count),
        completionTokens: count(spend.output),
        estimated: true,
      }
      : undefined);
    if (!usage) return;
    const cost = usageCost(usage, { input: source.priceInput, output: source.priceOutput });
    try {
      ledger.record({
        source: provider.name,
        day: dayOf(this.#options.clock.now()),
        cause: call.cause,
        usage,
        ...(cost !== undefined ? { cost } : {}),
      });
    } catch (error) {
      this.#options.logger.error("Recording LLM usage failed", {
        source: provider.name,
        error: errorMessage(error),
      });
    }
  }

  /** The refusal of a call for `cause` once it used up its daily token cap, else undefined. */
  causeCapFailure(cause: string): UsageCapError | undefined {
    const cap = this.#options.causeCap?.(cause) ?? 0;
    const ledger = this.#options.usage;
    if (cap <= 0 || !ledger) return undefined;
    let used: number;
    try {
      used = ledger.causeTokens(cause, dayOf(this.#options.clock.now()));
    } catch (error) {
      this.#options.logger.error("Reading LLM usage failed; the cause cap is not checked", {
        cause,
        error: errorMessage(error),
      });
      return undefined;
    }
    return used >= cap ? new UsageCapError(cause, used, cap) : undefined;
  }

  /** Prompt + completion tokens of `source` today (local day); 0 without a ledger. */
  tokensToday(source: string): number {
    const ledger = this.#options.usage;
    if (!ledger) return 0;
    try {
      const totals = ledger.totals(source, dayOf(this.#options.clock.now()));
      return totals.promptTokens + totals.completionTokens;
    } catch {
      return 0;
    }
  }

  /** The failure of a source that used up its daily token cap, else undefined. */
  capFailure(source: SourceConfig): ProviderError | undefined {
    const cap = source.dailyTokenCap ?? 0;
    if (cap <= 0) return undefined;
    const used = this.tokensToday(source.name);
    if (used < cap) return undefined;
    return new ProviderError(
      source.name,
      "rate_limit",
      `Source "${source.name}" reached its daily token cap (${used} of ${cap} tokens today); ` +
        "skipped until tomorrow",
    );
  }
}

function build(plan: RequestPlan, fit: RequestFit): ChatRequest {
  return typeof plan === "function" ? plan(fit) : plan;
}
