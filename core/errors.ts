/** Typed domain errors. Misuse uses built-ins (TypeError, RangeError); these are failures callers handle. */
import type { EmbeddingFailureKind } from "./memory/embedding.ts";

/** Base class of every HomeAgent domain error: a stable `code` plus the underlying `cause`. */
export class HomeAgentError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Why a provider call failed; drives fallback and retry decisions. */
export type ProviderFailureKind =
  | "auth" // 401/403: unusable until its config changes
  | "server" // 5xx
  | "rate_limit" // 429
  | "timeout"
  | "network" // refused, reset, DNS
  | "malformed" // body or stream we cannot parse
  | "overflow" // prompt longer than the model's window
  | "bad_request" // other 4xx
  | "cancelled"; // the caller aborted; never a provider failure

/** A provider call that failed; `retryable` says whether one retry after a short delay may help. */
export class ProviderError extends HomeAgentError {
  readonly source: string;
  readonly kind: ProviderFailureKind;
  readonly status?: number;
  readonly retryable: boolean;
  constructor(
    source: string,
    kind: ProviderFailureKind,
    message: string,
    options?: { status?: number; cause?: unknown },
  ) {
    super(`provider_${kind}`, message, options);
    this.source = source;
    this.kind = kind;
    this.status = options?.status;
    this.retryable = kind === "server" || kind === "timeout" || kind === "network" ||
      kind === "malformed" || kind === "rate_limit";
  }
}

/** Every configured source failed; `failures` names each source's own error. */
export class AllProvidersFailedError extends HomeAgentError {
  readonly failures: readonly ProviderError[];
  constructor(failures: readonly ProviderError[]) {
    const detail = failures.map((f) => `${f.source}: ${f.message}`).join("; ");
    super(
      "providers_all_failed",
      failures.length === 0 ? "No LLM source is configured" : `All LLM sources failed (${detail})`,
    );
    this.failures = failures;
  }
}

/**
 * No LLM source is configured at all. `command` is how the owner runs the command line
 * (`homeagent`, `deno task homeagent`, …), so the advice names a command they have.
 */
export class NoProviderError extends HomeAgentError {
  constructor(command = "homeagent") {
    super(
      "no_provider",
      "No LLM source is configured. Set HOMEAGENT_LLM_BASE_URL and HOMEAGENT_LLM_MODEL " +
        `(and HOMEAGENT_LLM_API_KEY if needed) before \`${command} serve\`, or run ` +
        `\`${command} config set core.llm.sources.main.base_url URL\` and ` +
        `\`${command} config set core.llm.sources.main.model MODEL\`; or open the web page ` +
        "(the URL `serve` prints), which opens on Setup while no source exists.",
    );
  }
}

/** What a context-length refusal measured (estimated tokens, the budget's own counter). */
export interface ContextLengthDetail {
  /** The smallest request that could be built: persona, input, tool schemas, this turn's rounds. */
  tokens: number;
  /** The largest window (less any reply reserve) among the sources that refused it. */
  limit: number;
  /** The user's own message, when the refusal is for a turn's input. */
  inputTokens?: number;
}

/**
 * A request that does not fit any LLM source's context window even with all context and memory
 * left out. Nothing was sent; the user's text is never cut to make it fit.
 */
export class ContextLengthError extends HomeAgentError {
  readonly tokens: number;
  readonly limit: number;
  readonly inputTokens?: number;
  constructor(detail: ContextLengthDetail, options?: { cause?: unknown }) {
    super("context_length_exceeded", contextLengthMessage(detail), options);
    this.tokens = detail.tokens;
    this.limit = detail.limit;
    this.inputTokens = detail.inputTokens;
  }
}

/**
 * The calls of one cause (the owner's web chat, a plugin's inputs, the heartbeat loops, …)
 * used up its daily token cap (`core.llm.causes.<cause>.daily_token_cap`): refused unsent.
 */
export class UsageCapError extends HomeAgentError {
  /** The cause whose cap was reached (`cause` is the error chain). */
  readonly usageCause: string;
  readonly used: number;
  readonly cap: number;
  constructor(cause: string, used: number, cap: number) {
    const n = (x: number) => x.toLocaleString("en-US");
    super(
      "usage_cap",
      `LLM calls for "${cause}" are refused until tomorrow: it used ${n(used)} of its ` +
        `${n(cap)} tokens today (core.llm.causes.${cause}.daily_token_cap)`,
    );
    this.usageCause = cause;
    this.used = used;
    this.cap = cap;
  }
}

function contextLengthMessage({ tokens, limit, inputTokens }: ContextLengthDetail): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const larger = "or use a source with a larger window " +
    "(core.llm.sources.<name>.context_window declares a model's window).";
  const window = `the largest context window of the LLM sources (${n(limit)} tokens)`;
  if (inputTokens === undefined) {
    return `The request needs about ${n(tokens)} tokens even with context and memory left out, ` +
      `more than ${window}; it was not sent. Shorten it, ${larger}`;
  }
  const room = limit - (tokens - inputTokens);
  if (room <= 0) {
    return `Your message cannot be answered: the persona and tool definitions alone need about ` +
      `${n(tokens - inputTokens)} tokens, more than ${window}. Shorten the persona, ${larger}`;
  }
  return `Your message is too long: it is about ${n(inputTokens)} tokens, and with the persona ` +
    `and tool definitions the request needs about ${n(tokens)}, more than ${window}. Shorten it ` +
    `to under about ${n(room)} tokens or send it in parts, ${larger}`;
}

/** A config key or value was refused. */
export class ConfigError extends HomeAgentError {
  readonly key: string;
  constructor(key: string, message: string, options?: { cause?: unknown }) {
    super("config_invalid", message, options);
    this.key = key;
  }
}

/** A plugin failed to load, start or answer. */
export class PluginError extends HomeAgentError {
  readonly plugin: string;
  constructor(plugin: string, message: string, options?: { cause?: unknown }) {
    super("plugin_failed", message, options);
    this.plugin = plugin;
  }
}

/** The operation was aborted by its signal (user stop, shutdown, timeout). */
export class AbortedError extends HomeAgentError {
  constructor(message = "Operation aborted", options?: { cause?: unknown }) {
    super("aborted", message, options);
  }
}

/** Describe any thrown value as one line, for logs and error results. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** True when `error` is an abort (DOMException AbortError, AbortedError or a cancelled ProviderError). */
export function isAbort(error: unknown): boolean {
  if (error instanceof AbortedError) return true;
  if (error instanceof ProviderError) return error.kind === "cancelled";
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

/** An embedding layer is missing or failed; `provider` names it (hash, static, onnx, http, tfidf). */
export class EmbeddingError extends HomeAgentError {
  readonly provider: string;
  readonly kind: EmbeddingFailureKind;
  constructor(
    provider: string,
    kind: EmbeddingFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`embedding_${kind}`, message, options);
    this.provider = provider;
    this.kind = kind;
  }
}

/** Why a `resident_agents` action was refused. */
export type ResidentFailureKind = "not_found" | "exists" | "limit" | "invalid" | "refused";

/** A resident sub-agent action failed; `resident` names the resident it concerned. */
export class ResidentError extends HomeAgentError {
  readonly resident: string;
  readonly kind: ResidentFailureKind;
  constructor(
    resident: string,
    kind: ResidentFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`resident_${kind}`, message, options);
    this.resident = resident;
    this.kind = kind;
  }
}

/**
 * The command line was misused (unknown command, missing argument, bad flag value): the
 * message says the right usage, and the process exits with code 2.
 */
export class UsageError extends HomeAgentError {
  constructor(message: string) {
    super("bad_usage", message);
  }
}
