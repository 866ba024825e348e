import assert from "node:assert/strict";
import { ensureHome, openMemory, registerMemoryDefaults } from "../../memory/mod.ts";
import { openTestRegistry } from "../fakes/config.ts";

Deno.test("openMemory removes a document that doc_query had moved into the window before a crash", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-tiers-" });
  using config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  const open = async () =>
    openMemory({
      paths: await ensureHome(home),
      config: config.registry,
      clock: config.clock,
      logger: config.logger,
    });
  try {
    const first = await open();
    const { id } = await first.documents.insert({ content: "Ann lives in Oslo", source: "web" });
    // doc_query's first half: the window holds the document; the process dies before the
    // document is deleted.
    first.context.insert({
      id: `doc:${id}`,
      role: "cold_storage",
      source: "web",
      channel: "memory",
      input: "Ann lives in Oslo",
      timestamp: 1000,
    });
    await first.close();
    const second = await open();
    try {
      assert.equal(second.documents.size(), 0, "the window's copy is the one kept");
      assert.deepEqual(second.context.events().map((e) => e.id), [`doc:${id}`]);
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
