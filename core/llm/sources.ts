/** LLM source configuration as the kernel sees it (DESIGN.md §5), and the factory port. */
import type { Provider } from "./provider.ts";

/**
 * Adapter names a source may use. The native clients are "openai" and "ollama"; Lua adapters
 * go by their script name, and `lua:<name>` picks the script where a native client exists.
 */
export type AdapterName = string;

/** One configured LLM source: `core.llm.sources.<name>.*`. */
export interface SourceConfig {
  name: string;
  adapter: AdapterName;
  /** What the provider's own SDK takes, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Declared window in tokens; 0 or absent means "derive from the model name". */
  contextWindow?: number;
  enabled: boolean;
  /** Most calls in flight at once (`max_concurrent`); absent means 8. */
  maxConcurrent?: number;
  /** The model accepts images / audio (`vision`, `audio`); shown in status and the tools. */
  vision?: boolean;
  audio?: boolean;
  /** Tokens (prompt + completion) a day after which the source is skipped; 0 or absent: no cap. */
  dailyTokenCap?: number;
  /** Money per million prompt / completion tokens (`price_input`, `price_output`); absent: free. */
  priceInput?: number;
  priceOutput?: number;
}

/** Calls in flight per source when `max_concurrent` is not set. */
export const DEFAULT_MAX_CONCURRENT = 8;

/** Builds a Provider for a source; throws TypeError for an adapter it does not know. */
export type ProviderFactory = (source: SourceConfig) => Provider;

/** A stable text identifying a source's configuration, so a change is detectable. */
export function sourceFingerprint(source: SourceConfig): string {
  return JSON.stringify([
    source.adapter,
    source.baseUrl,
    source.apiKey ?? "",
    source.model,
    source.contextWindow ?? 0,
    source.enabled,
  ]);
}
