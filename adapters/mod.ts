/**
 * Runtime adapters: the native OpenAI and Ollama LLM clients, the Lua adapter runtime, the
 * factory that picks one per source, the daemon's provider manager over them, the system clock,
 * the JSON-lines logger and the idle trim of native memory.
 */
export type { NativeClientOptions } from "./_client.ts";
export { OpenAIProvider } from "./openai.ts";
export { OllamaProvider } from "./ollama.ts";
export { contextWindowFor, FALLBACK_CONTEXT_WINDOW } from "./model_windows.ts";
export { systemClock } from "./system_clock.ts";
export {
  createTokenizers,
  encodingFor,
  type EncodingName,
  type Tokenizers,
  type TokenizersOptions,
} from "./tokenizers.ts";
export {
  bundledAdapters,
  createLuaVm,
  installBundledAdapters,
  LUA_GLUE_FILE,
  LuaAdapterRuntime,
  luaGlueFile,
  registerLuaAdapterDefaults,
} from "./lua/mod.ts";
export { createJsonLogger, parseLogLevel, writeStderr } from "./json_logger.ts";
export { type MallocTrim, openMallocTrim, trimWhenIdle } from "./malloc_trim.ts";

export { type AdapterBuilder, createProviderFactory } from "./factory.ts";
export { type OpenedProviders, openProviders } from "./providers.ts";
export {
  createSourceProbe,
  listModels,
  type ModelListResult,
  type ProbeFailure,
  type SourceProbe,
  type SourceTestResult,
} from "./source_probe.ts";
