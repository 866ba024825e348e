/** Plugins left out of a start: fail-back boot (registry.leftOut), a disabled folder that breaks. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { FAILBACK_ERROR } from "../../../plugins/host/mod.ts";
import { createHarness } from "./_support.ts";

Deno.test("PluginRegistry in fail-back boot leaves an enabled plugin out and names it", async () => {
  await using h = await createHarness(["luademo"], { failback: true });
  const info = h.registry.info("luademo");
  assert.equal(info.state, "disabled");
  assert.equal(info.error, FAILBACK_ERROR);
  assert.deepEqual(h.registry.leftOut(), ["luademo"]);
});

Deno.test("PluginRegistry in a normal boot leaves nothing out", async () => {
  await using h = await createHarness(["luademo"]);
  assert.equal(h.registry.info("luademo").state, "running");
  assert.deepEqual(h.registry.leftOut(), []);
});

Deno.test("A disabled plugin whose folder does not load says why, and starts once mended", async () => {
  await using h = await createHarness(["luademo"], { load: false });
  h.kernel.config.registry.set("core.plugins.luademo.enabled", false);
  const manifest = join(h.pluginsDir, "luademo", "plugin.json");
  const good = await Deno.readTextFile(manifest);
  await Deno.writeTextFile(manifest, "{ not json");
  await h.registry.load();
  const info = h.registry.info("luademo");
  assert.equal(info.state, "disabled");
  assert.match(info.error ?? "", /^Its folder does not load: .*plugin\.json/);
  await Deno.writeTextFile(manifest, good);
  const enabled = await h.registry.enable("luademo");
  assert.equal(enabled.state, "running");
  assert.equal(enabled.error, undefined);
});
