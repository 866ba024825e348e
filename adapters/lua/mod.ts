/** The Lua adapter runtime: sandboxed adapter scripts translating provider wire formats. */
export { installBundledAdapters, LuaAdapterRuntime } from "./runtime.ts";
export { bundledAdapters } from "./bundled.ts";
export { luaAdapterLimits, registerLuaAdapterDefaults } from "./settings.ts";
export { createLuaVm } from "./vm.ts";
export { LUA_GLUE_FILE, luaGlueFile } from "./glue.ts";
