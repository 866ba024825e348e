/** A fail-back boot leaves the enabled installed plugins out, and says which (registry.leftOut). */
import assert from "node:assert/strict";
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
