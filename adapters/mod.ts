/**
 * Runtime adapters: the native OpenAI and Ollama LLM clients, the Lua adapter runtime, the
 * factory that picks one per source, the system clock and the JSON-lines logger.
 */
import type { Clock, Logger, Provider, ProviderFactory, SourceConfig } from "../core/mod.ts";
import type { NativeClientOptions } from "./_client.ts";
import { OllamaProvider } from "./ollama.ts";
import { OpenAIProvider } from "./openai.ts";

export type { NativeClientOptions } from "./_client.ts";
export { OpenAIProvider, type OpenAIProviderOptions } from "./openai.ts";
export { OllamaProvider, type OllamaProviderOptions } from "./ollama.ts";
export {
  contextWindowFor,
  type ContextWindowOptions,
  FALLBACK_CONTEXT_WINDOW,
  MODEL_WINDOWS,
} from "./model_windows.ts";
export { systemClock } from "./system_clock.ts";
export * from "./lua/mod.ts";
export {
  createJsonLogger,
  type JsonLoggerOptions,
  type LogLevel,
  parseLogLevel,
} from "./json_logger.ts";

/** Builds the Provider of one source; may throw TypeError for a source it cannot serve. */
export type AdapterBuilder = (source: SourceConfig, options: NativeClientOptions) => Provider;

/** The built-in adapters by name. */
export const nativeAdapters: ReadonlyMap<string, AdapterBuilder> = new Map<string, AdapterBuilder>([
  ["openai", (source, options) => new OpenAIProvider({ ...options, source })],
  ["ollama", (source, options) => new OllamaProvider({ ...options, source })],
]);

/** Options of createProviderFactory. */
export interface ProviderFactoryOptions extends NativeClientOptions {
  clock: Clock;
  logger: Logger;
  /** Extra adapters by name (e.g. the Lua adapter runtime's); they win over the native ones. */
  adapters?: ReadonlyMap<string, AdapterBuilder>;
  /** Asked for a name in neither table (a Lua script added after start); undefined if unknown. */
  resolve?: (adapter: string) => AdapterBuilder | undefined;
}

/** A ProviderFactory dispatching on `source.adapter`; unknown names throw TypeError. */
export function createProviderFactory(options: ProviderFactoryOptions): ProviderFactory {
  const table = new Map([...nativeAdapters, ...(options.adapters ?? [])]);
  const { adapters: _adapters, resolve, ...shared } = options;
  return (source) => {
    const name = source.adapter.trim().toLowerCase();
    const build = table.get(name) ?? resolve?.(name);
    if (!build) {
      const known = [...table.keys()].map((name) => `"${name}"`).join(", ");
      throw new TypeError(
        `Cannot build LLM source "${source.name}": unknown adapter "${source.adapter}" ` +
          `(known adapters: ${known})`,
      );
    }
    return build(source, shared);
  };
}
