import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ensureHome,
  exportMemory,
  openMemory,
  registerMemoryDefaults,
} from "../../../memory/mod.ts";
import { openTestRegistry } from "../../fakes/config.ts";
import { RED, solidPng } from "../../fixtures/media.ts";

Deno.test("memory export carries media blocks with their bytes, and import restores them once", async () => {
  const root = await Deno.makeTempDir({ prefix: "homeagent-export-" });
  using config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  const open = async (name: string) =>
    openMemory({
      paths: await ensureHome(join(root, name)),
      config: config.registry,
      clock: config.clock,
      logger: config.logger,
    });
  try {
    const file = join(root, "export.jsonl");
    const png = solidPng(RED);
    {
      await using a = await open("a");
      const ref = await a.media.put(png);
      await a.media.link(ref.digest, { sentence: "our new sofa", turnId: "t9" });
      const counts = await exportMemory({
        documents: a.documents,
        graph: a.graph.graph,
        media: a.media,
      }, file);
      assert.equal(counts.media, 1);
    }
    const line = (await Deno.readTextFile(file)).trim().split("\n").map((l) => JSON.parse(l))
      .find((r) => r.type === "media");
    assert.equal(line.mime, "image/png");
    assert.deepEqual(line.sentences, ["our new sofa"]);
    await using b = await open("b");
    const first = await b.importFile(file);
    assert.equal(first.media, 1);
    const again = await b.importFile(file);
    assert.equal(again.skipped.media, 1);
    const block = await b.media.info(line.digest);
    assert.deepEqual(block?.sentences, ["our new sofa"]);
    assert.deepEqual(block?.turnIds, ["t9"]);
    assert.deepEqual((await b.media.get(line.digest)).bytes, png);

    const forged = join(root, "forged.jsonl");
    const lines = (await Deno.readTextFile(file)).trim().split("\n").map((l) => JSON.parse(l));
    const media = lines.find((r) => r.type === "media");
    media.digest = "0".repeat(64);
    await Deno.writeTextFile(forged, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    await using c = await open("c");
    await assert.rejects(c.importFile(forged), /does not hash to its digest/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
