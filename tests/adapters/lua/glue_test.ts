import assert from "node:assert/strict";
import { join } from "node:path";
import { LuaFactory } from "wasmoon";
import { LUA_GLUE_FILE, luaGlueFile } from "../../../adapters/mod.ts";

Deno.test("luaGlueFile writes the glue.wasm the program carries once, privately, and wasmoon runs from it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = await luaGlueFile(dir);
    assert.equal(path, join(dir, LUA_GLUE_FILE));
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    const written = (await Deno.stat(path)).mtime!.getTime();
    assert.equal(await luaGlueFile(dir), path);
    assert.equal((await Deno.stat(path)).mtime!.getTime(), written, "same bytes: not rewritten");
    await Deno.writeFile(path, new Uint8Array([1, 2, 3]));
    await luaGlueFile(dir);
    assert.ok((await Deno.stat(path)).size > 100_000, "a damaged copy is replaced");
    const lua = await new LuaFactory(path).createEngine();
    try {
      assert.equal(await lua.doString("return 6 * 7"), 42);
    } finally {
      lua.global.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
