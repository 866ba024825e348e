/**
 * wasmoon's `glue.wasm` as a file of its own. wasmoon reads it with node:fs from beside its own
 * module, which a one-file bundle or a compiled binary does not have (RECIPES.md §11: data: and
 * blob: URLs are refused), so the program carries the bytes and writes them out once per start;
 * run from the checkout, wasmoon finds its own file.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The file name in the folder given to luaGlueFile. */
export const LUA_GLUE_FILE = "lua-glue.wasm";

/** Options of luaGlueFile. */
export interface LuaGlueOptions {
  /** wasmoon's own glue.wasm when it is a file on disk; default packagedGlue. */
  packaged?: () => string | undefined;
}

/**
 * The glue.wasm for `new LuaFactory(path)`: wasmoon's own file where the program runs from the
 * checkout (nothing read or written: measured ~25 ms of a fresh home's start, writing it), else
 * the embedded bytes written into `dir` (the home's run/ folder) unless the same bytes are
 * there. Atomic: a reader never sees half.
 */
export async function luaGlueFile(dir: string, options: LuaGlueOptions = {}): Promise<string> {
  const packaged = (options.packaged ?? packagedGlue)();
  if (packaged !== undefined) return packaged;
  const { default: bytes } = await import("wasmoon/dist/glue.wasm", { with: { type: "bytes" } });
  const path = join(dir, LUA_GLUE_FILE);
  const current = await Deno.readFile(path).catch(() => undefined);
  if (current && equal(current, bytes)) return path;
  const temp = `${path}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.writeFile(temp, bytes, { mode: 0o600 });
  await Deno.rename(temp, path);
  return path;
}

/**
 * wasmoon's glue.wasm in node_modules, when the package resolves to files (the checkout and its
 * agent build cache); undefined in the one-file bundle and a compiled binary, which resolve no
 * package, or when the file is not there.
 */
export function packagedGlue(): string | undefined {
  try {
    const url = new URL(import.meta.resolve("wasmoon/dist/glue.wasm"));
    return url.protocol === "file:" && Deno.statSync(url).isFile ? fileURLToPath(url) : undefined;
  } catch {
    return undefined; // not resolvable here: the bytes the program carries
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
