/**
 * The per-source rules of ProviderManager that are not about retry: the overflow guard and
 * prune, usage recording, and the daily token cap.
 */
import { estimateTokens, type TokenCounter } from "./budget.ts";
import { errorMessage, ProviderError } from "./errors.ts";
import type { SourceConfig } from "./llm_sources.ts";
import type { Clock, Logger } from "./ports.ts";
import type { ChatRequest, ChatResponse, Provider, Usage } from "./provider.ts";
import {
  type PruneReason,
  pruneRequest,
  type RequestPruner,
  requestTokens,
} from "./_request_prune.ts";
import { dayOf, type UsageLedger } from "./usage.ts";

/** The overflow guard prunes before sending once the estimate reaches this × the window. */
export const OVERFLOW_GUARD_RATIO = 1.25;

/** What SourceLimits needs (a subset of ProviderManagerOptions). */
export interface SourceLimitsOptions {
  clock: Clock;
  logger: Logger;
  usage?: UsageLedger;
  prune?: RequestPruner;
  countTokens?: TokenCounter;
}

/** Told when a request was pruned. */
export type PruneListener = (reason: PruneReason, before: number, after: number) => void;

/** Overflow guard, prune, usage and caps of every source. */
export class SourceLimits {
  #options: SourceLimitsOptions;
  #count: TokenCounter;

  constructor(options: SourceLimitsOptions) {
    this.#options = options;
    this.#count = options.countTokens ?? estimateTokens;
  }

  /** `request`, pruned first when its estimate reaches 1.25× the provider's window. */
  guard(
    provider: Provider,
    request: ChatRequest,
    onPrune: PruneListener,
  ): Promise<ChatRequest> | ChatRequest {
    const window = provider.maxContextTokens();
    if (requestTokens(request, this.#count) < window * OVERFLOW_GUARD_RATIO) return request;
    return this.prune(provider, request, "guard", onPrune);
  }

  /** A smaller request for `provider`: at most 0.8× its window and 0.75× the current size. */
  async prune(
    provider: Provider,
    request: ChatRequest,
    reason: PruneReason,
    onPrune: PruneListener,
  ): Promise<ChatRequest> {
    const count = this.#count;
    const window = provider.maxContextTokens();
    const before = requestTokens(request, count);
    const targetTokens = Math.floor(Math.min(window * 0.8, before * 0.75));
    const prune = this.#options.prune ?? pruneRequest;
    const pruned = await prune(request, {
      source: provider.name,
      reason,
      window,
      targetTokens,
      count,
    });
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

  /** Add a successful call's usage (estimated when the provider reported none). Never throws. */
  record(source: string, request: ChatRequest, response: ChatResponse): void {
    const ledger = this.#options.usage;
    if (!ledger) return;
    const count = this.#count;
    const usage: Usage = response.usage ?? {
      promptTokens: requestTokens(request, count),
      completionTokens: count(response.text) +
        response.toolCalls.reduce((n, c) => n + count(c.name) + count(c.arguments), 0),
    };
    try {
      ledger.record(source, dayOf(this.#options.clock.now()), usage);
    } catch (error) {
      this.#options.logger.error("Recording LLM usage failed", {
        source,
        error: errorMessage(error),
      });
    }
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
