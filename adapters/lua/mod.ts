/** The Lua adapter runtime: sandboxed adapter scripts translating provider wire formats. */
export {
  installBundledAdapters,
  LUA_PREFIX,
  type LuaAdapterBuilder,
  type LuaAdapterMemory,
  LuaAdapterRuntime,
  type LuaAdapterRuntimeOptions,
  type LuaScript,
} from "./runtime.ts";
export { bundledAdapters } from "./bundled.ts";
export { type LuaAdapterLimits, luaAdapterLimits, registerLuaAdapterDefaults } from "./settings.ts";
export { LuaProvider, type LuaProviderOptions, type LuaVmLease } from "./provider.ts";
export {
  createLuaVm,
  DEFAULT_INSTRUCTION_LIMIT,
  DEFAULT_MEMORY_LIMIT_BYTES,
  DEFAULT_TIME_LIMIT_MS,
  type LuaExports,
  type LuaHttpHost,
  LuaScriptError,
  LuaVm,
  type LuaVmOptions,
} from "./vm.ts";
export { LUA_GLUE_FILE, luaGlueFile } from "./glue.ts";
