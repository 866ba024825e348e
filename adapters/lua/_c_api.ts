/**
 * The wasm exports of the C API on the adapter VM's hot path, called directly: wasmoon's wrappers
 * go through emscripten's ccall for every call (and its lua_pushlstring decodes the pushed bytes
 * back into a JS string), which cost more per stream chunk than the Lua call itself.
 */

/** The exports used, as the emscripten module carries them. */
export interface RawLua {
  "_lua_gettop"(L: number): number;
  "_lua_settop"(L: number, index: number): void;
  "_lua_rawgeti"(L: number, index: number, n: bigint): number;
  "_lua_pushnumber"(L: number, n: number): void;
  "_lua_pushboolean"(L: number, b: number): void;
  "_lua_pushlstring"(L: number, pointer: number, size: number): number;
  "_lua_pcallk"(
    L: number,
    nargs: number,
    nresults: number,
    errfunc: number,
    ctx: number,
    k: number,
  ): number;
  "_lua_type"(L: number, index: number): number;
  "_lua_tolstring"(L: number, index: number, sizeSlot: number): number;
  _malloc(size: number): number;
  _free(pointer: number): void;
  lengthBytesUTF8(text: string): number;
  stringToUTF8(text: string, pointer: number, max: number): void;
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
}

/** An argument the VM's entry points take. */
export type Arg = string | number | boolean;

const utf8 = new TextDecoder();

/** Push `arg` on L's stack; a string as its exact UTF-8 bytes, embedded NULs included. */
export function pushArg(raw: RawLua, L: number, arg: Arg): void {
  if (typeof arg === "number") return raw._lua_pushnumber(L, arg);
  if (typeof arg === "boolean") return raw._lua_pushboolean(L, arg ? 1 : 0);
  const size = raw.lengthBytesUTF8(arg);
  const pointer = raw._malloc(size + 1);
  try {
    raw.stringToUTF8(arg, pointer, size + 1);
    raw._lua_pushlstring(L, pointer, size);
  } finally {
    raw._free(pointer);
  }
}

/** The string at the top of L's stack, read with its length (it may hold NULs); "" if none. */
export function topString(raw: RawLua, L: number, sizeSlot: number): string {
  const pointer = raw._lua_tolstring(L, -1, sizeSlot);
  if (pointer === 0) return "";
  const size = raw.HEAPU32[sizeSlot >>> 2] ?? 0;
  return utf8.decode(raw.HEAPU8.subarray(pointer, pointer + size));
}
