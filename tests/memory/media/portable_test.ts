import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ensureHome,
  exportMemory,
  openMemory,
  registerMemoryDefaults,
} from "../../../memory/mod.ts";
import { exportMemoryDir } from "../../../memory/cli/markdown.ts";
import { mediaFileName } from "../../../memory/cli/_markdown_media.ts";
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

Deno.test("memory export DIR puts each image beside the entity its sentence is about", async () => {
  const root = await Deno.makeTempDir({ prefix: "homeagent-export-" });
  using config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  try {
    await using a = await openMemory({
      paths: await ensureHome(join(root, "home")),
      config: config.registry,
      clock: config.clock,
      logger: config.logger,
    });
    const sentence = "Rex is our new dog";
    await a.graph.graph.commit([{ subject: "Rex", predicate: "is_a", object: "dog", sentence }]);
    const dog = await a.media.put(solidPng(RED));
    await a.media.link(dog.digest, { sentence, turnId: "t1" });
    const loose = await a.media.put(solidPng([0, 0, 255]));
    await a.media.link(loose.digest, { sentence: "look at this", turnId: "t2" });
    const dir = join(root, "export");
    const counts = await exportMemoryDir({
      documents: a.documents,
      graph: a.graph.graph,
      media: a.media,
    }, dir);
    assert.equal(counts.media, 2);
    const pages = [...Deno.readDirSync(join(dir, "entities"))].map((e) => e.name);
    const rex = pages.find((n) => n.startsWith("Rex-") && n.endsWith(".md"))!;
    const image = `${rex.replace(/\.md$/, "")}.media/${mediaFileName(dog)}`;
    assert.deepEqual(await Deno.readFile(join(dir, "entities", image)), solidPng(RED));
    assert.match(await Deno.readTextFile(join(dir, "entities", rex)), /## Images\n\n- !\[/);
    assert.ok((await Deno.readTextFile(join(dir, "entities", rex))).includes(encodeURI(image)));
    const rest = [...Deno.readDirSync(join(dir, "media"))].map((e) => e.name);
    assert.deepEqual(rest, [mediaFileName(loose)]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
