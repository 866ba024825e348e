import assert from "node:assert/strict";
import { join } from "node:path";
import { LuaFactory } from "wasmoon";
import { LUA_GLUE_FILE, luaGlueFile } from "../../../adapters/mod.ts";
import { packagedGlue } from "../../../adapters/lua/glue.ts";

/** wasmoon runs Lua from the glue.wasm at `path`. */
async function assertLuaRuns(path: string): Promise<void> {
  const lua = await new LuaFactory(path).createEngine();
  try {
    assert.equal(await lua.doString("return 6 * 7"), 42);
  } finally {
    lua.global.close();
  }
}

Deno.test("luaGlueFile writes the glue.wasm the program carries once, privately, and wasmoon runs from it", async () => {
  const dir = await Deno.makeTempDir();
  const carried = { packaged: () => undefined }; // as in the bundle: no package on disk
  try {
    const path = await luaGlueFile(dir, carried);
    assert.equal(path, join(dir, LUA_GLUE_FILE));
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    const written = (await Deno.stat(path)).mtime!.getTime();
    assert.equal(await luaGlueFile(dir, carried), path);
    assert.equal((await Deno.stat(path)).mtime!.getTime(), written, "same bytes: not rewritten");
    await Deno.writeFile(path, new Uint8Array([1, 2, 3]));
    await luaGlueFile(dir, carried);
    assert.ok((await Deno.stat(path)).size > 100_000, "a damaged copy is replaced");
    await assertLuaRuns(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("luaGlueFile gives wasmoon's own glue.wasm from the checkout and writes nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = await luaGlueFile(dir);
    assert.equal(path, packagedGlue());
    assert.match(path, /node_modules\/.*wasmoon\/dist\/glue\.wasm$/);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dir)), []);
    await assertLuaRuns(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
