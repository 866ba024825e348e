/** Plugins that run code outside the Deno sandbox need the owner's explicit say-so. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { defaultImportMap } from "../../plugins/mod.ts";
import { copyFixture, createHarness, type PluginHarness } from "./_support.ts";

/** A native entry (a shell script) that runs the echo fixture: a real protocol speaker. */
async function nativeEcho(h: PluginHarness): Promise<string> {
  const dir = await copyFixture(h.pluginsDir, "echo");
  const script = `#!/bin/sh\nexec "${Deno.execPath()}" run -A --no-config --quiet ` +
    `--import-map="${defaultImportMap()}" "${join(dir, "main.ts")}"\n`;
  await Deno.writeTextFile(join(dir, "plugin.sh"), script, { mode: 0o755 });
  const manifest = JSON.parse(await Deno.readTextFile(join(dir, "plugin.json")));
  manifest.entry = "plugin.sh";
  await Deno.writeTextFile(join(dir, "plugin.json"), JSON.stringify(manifest));
  return dir;
}

const warnings = (h: PluginHarness) =>
  h.kernel.logger.find("Plugin runs outside the sandbox (core.plugins.allow_native is true)");

Deno.test("A native entry is refused unless core.plugins.allow_native is true", async () => {
  await using h = await createHarness([], { load: false });
  await nativeEcho(h);
  await h.registry.load();
  const info = h.registry.info("echo");
  assert.equal(info.state, "failed");
  assert.match(
    info.error!,
    /its entry "plugin.sh" is a native program, which HomeAgent cannot sandbox; set core.plugins.allow_native to true/,
  );
  assert.equal(warnings(h).length, 0);
});

Deno.test("An allowed native plugin starts, and every start says it runs outside the sandbox", async () => {
  await using h = await createHarness([], { load: false });
  await nativeEcho(h);
  h.kernel.config.registry.set("core.plugins.allow_native", true);
  await h.registry.load();
  assert.equal(h.registry.info("echo").state, "running");
  assert.deepEqual(await h.call("echo_say", { text: "hi" }), { content: "echo: hi" });
  await h.registry.reload("echo");
  assert.equal(warnings(h).length, 2);
  assert.match(String(warnings(h)[0]!.fields.why), /native program/);
});

Deno.test("permissions.run counts as native; a write permission over plugin.json is refused", async () => {
  await using h = await createHarness([], { load: false });
  for (
    const [name, permissions] of [["runner", { run: ["helper.sh"] }], ["rewriter", {
      write: ["."],
    }]] as const
  ) {
    const dir = await copyFixture(h.pluginsDir, "echo", name);
    const manifest = JSON.parse(await Deno.readTextFile(join(dir, "plugin.json")));
    await Deno.writeTextFile(
      join(dir, "plugin.json"),
      JSON.stringify({ ...manifest, name, permissions }),
    );
  }
  await h.registry.load();
  assert.match(
    h.registry.info("runner").error!,
    /it starts programs \("helper.sh"\), which HomeAgent cannot sandbox/,
  );
  assert.match(
    h.registry.info("rewriter").error!,
    /write permission "." would cover its own plugin.json/,
  );
});
