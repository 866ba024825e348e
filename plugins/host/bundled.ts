/**
 * What the one-file bundle carries as text, for code that runs in a process or worker of its
 * own: the bundle build (.ci/bundle.ts) replaces this file with the bundled texts. Run from the
 * source tree there are none, and those modules are loaded from their files.
 */

/** The plugin SDK as one module (plugins/host/runtime.ts writes it out for Deno plugins). */
export const SDK_BUNDLE: string | undefined = undefined;

/** The Lua plugins' worker as one module (plugins/host/lua_channel.ts starts it). */
export const LUA_WORKER_BUNDLE: string | undefined = undefined;
