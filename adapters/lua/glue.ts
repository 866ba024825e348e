/**
 * wasmoon's `glue.wasm` as a file of its own. wasmoon reads it with node:fs from beside its own
 * module, which a one-file bundle or a compiled binary does not have (RECIPES.md §11: data: and
 * blob: URLs are refused), so the program carries the bytes and writes them out once per start.
 */
import { join } from "node:path";

/** The file name in the folder given to luaGlueFile. */
export const LUA_GLUE_FILE = "lua-glue.wasm";

/**
 * Write the embedded glue.wasm into `dir` (the home's run/ folder) unless the same bytes are
 * there, and return its path, for `new LuaFactory(path)`. Atomic: a reader never sees half.
 */
export async function luaGlueFile(dir: string): Promise<string> {
  const { default: bytes } = await import("wasmoon/dist/glue.wasm", { with: { type: "bytes" } });
  const path = join(dir, LUA_GLUE_FILE);
  const current = await Deno.readFile(path).catch(() => undefined);
  if (current && equal(current, bytes)) return path;
  const temp = `${path}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.writeFile(temp, bytes, { mode: 0o600 });
  await Deno.rename(temp, path);
  return path;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
