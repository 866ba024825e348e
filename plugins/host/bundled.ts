/**
 * What the one-file bundle carries as text, for code that runs in a process or worker of its
 * own: the bundle build (.ci/bundle.ts) replaces this file with functions returning the bundled
 * texts. Functions, not constants: V8 makes a string of a literal only when the function that
 * holds it first runs, so a daemon without Lua plugins never holds the worker's text twice.
 * Run from the source tree there are none, and those modules are loaded from their files.
 */

/** The plugin SDK as one module (plugins/host/runtime.ts writes it out for Deno plugins). */
export function sdkBundle(): string | undefined {
  return undefined;
}

/** The Lua plugins' worker as one module (plugins/host/lua_channel.ts starts it). */
export function luaWorkerBundle(): string | undefined {
  return undefined;
}
