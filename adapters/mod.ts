/**
 * Runtime adapters: the native OpenAI and Ollama LLM clients, the Lua adapter runtime, the
 * factory that picks one per source, the daemon's provider manager over them, the system clock
 * and the JSON-lines logger.
 */
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
  writeStderr,
} from "./json_logger.ts";

export {
  type AdapterBuilder,
  createProviderFactory,
  nativeAdapters,
  type ProviderFactoryOptions,
} from "./factory.ts";
export { openProviders, type OpenProvidersOptions } from "./providers.ts";
