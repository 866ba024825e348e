/** The factory that picks the adapter of each LLM source: native clients, else Lua scripts. */
import type { Clock, Logger, Provider, ProviderFactory, SourceConfig } from "../core/mod.ts";
import type { NativeClientOptions } from "./_client.ts";
import { OllamaProvider } from "./ollama.ts";
import { OpenAIProvider } from "./openai.ts";

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
