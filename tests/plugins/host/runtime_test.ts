/** What Deno plugins run on when HomeAgent is a compiled binary or a bundle (plugins/host/runtime.ts). */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { defaultImportMap, pluginRuntime } from "../../../plugins/mod.ts";
import { createHarness } from "./_support.ts";

const deno = Deno.execPath();

Deno.test("pluginRuntime: deno itself, else HOMEAGENT_DENO, else deno on PATH; never a compiled homeagent", async () => {
  const base = { runDir: "/nonexistent", sdk: undefined };
  const onPath = new Set(["/usr/local/bin/deno", "/opt/deno/deno"]);
  const isExecutable = (file: string) => onPath.has(file);
  const run = (execPath: string, env: Record<string, string>) =>
    pluginRuntime({ ...base, execPath, env, isExecutable });
  assert.equal((await run("/home/ann/.deno/bin/deno", {})).denoPath, "/home/ann/.deno/bin/deno");
  const compiled = "/usr/local/bin/homeagent";
  assert.equal(
    (await run(compiled, { PATH: "/usr/bin:/usr/local/bin" })).denoPath,
    "/usr/local/bin/deno",
  );
  assert.equal(
    (await run(compiled, { PATH: "/usr/local/bin", HOMEAGENT_DENO: "/opt/deno/deno" })).denoPath,
    "/opt/deno/deno",
  );
  assert.equal((await run(compiled, { HOMEAGENT_DENO: "/opt/none/deno" })).denoPath, null);
  assert.equal((await run(compiled, { PATH: "/usr/bin" })).denoPath, null);
  assert.equal((await run(compiled, {})).importMap, defaultImportMap(), "the SDK's own files");
});

Deno.test("pluginRuntime writes the SDK a bundle carries, alone in its folder, and rewrites it when it differs", async () => {
  const runDir = await Deno.makeTempDir();
  try {
    const options = { runDir, execPath: deno, env: {}, sdk: "export const A = 1;\n" };
    const { importMap } = await pluginRuntime(options);
    assert.equal(importMap, join(runDir, "plugin-sdk", "import_map.json"));
    assert.deepEqual(JSON.parse(await Deno.readTextFile(importMap!)), {
      imports: { "@homeagent/plugin-sdk": "./mod.js" },
    });
    const sdk = join(runDir, "plugin-sdk", "mod.js");
    assert.equal(await Deno.readTextFile(sdk), "export const A = 1;\n");
    assert.equal((await Deno.stat(sdk)).mode! & 0o777, 0o600);
    await Deno.writeTextFile(sdk, "tampered");
    await pluginRuntime({ ...options, sdk: "export const A = 2;\n" });
    assert.equal(await Deno.readTextFile(sdk), "export const A = 2;\n");
    assert.deepEqual([...Deno.readDirSync(dirname(sdk))].map((e) => e.name).sort(), [
      "import_map.json",
      "mod.js",
    ]);
  } finally {
    await Deno.remove(runDir, { recursive: true });
  }
});

Deno.test("A compiled homeagent runs Deno plugins with the deno it finds, in the same sandbox; without one they fail saying what to install", async () => {
  // As the compiled binary would see it: its own path is not deno, deno is on PATH.
  const found = await pluginRuntime({
    runDir: "/nonexistent",
    execPath: "/opt/homeagent/homeagent",
    env: { PATH: `/nonexistent:${dirname(deno)}` },
  });
  assert.equal(found.denoPath, join(dirname(deno), "deno"));
  {
    await using h = await createHarness(["echo"], found);
    assert.deepEqual(await h.call("echo_say", { text: "hi" }), { content: "echo: hi" });
    const probe = await h.call("echo_probe", { op: "read", target: "/etc/hostname" });
    assert.equal(probe.isError, true, "still sandboxed");
    assert.match(probe.content, /NotCapable/);
  }
  await using h = await createHarness(["echo"], { denoPath: null });
  const info = h.registry.info("echo");
  assert.equal(info.state, "failed");
  assert.match(
    info.error!,
    /^Cannot start plugin "echo": it runs on Deno, and this compiled homeagent found no deno .*install Deno 2 .* or set HOMEAGENT_DENO/,
  );
});

Deno.test("Lua plugins load wasmoon from the glue file they are given; a worker that cannot start fails its plugin, not the daemon", async () => {
  await using h = await createHarness(["luademo"], { luaWasmPath: "/nonexistent/glue.wasm" });
  const info = h.registry.info("luademo");
  assert.equal(info.state, "failed");
  assert.match(
    info.error!,
    /Lua plugin "luademo" its VM did not start: .*\/nonexistent\/glue\.wasm/,
  );
});
