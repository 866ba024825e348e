import assert from "node:assert/strict";
import { join } from "node:path";
import { KnowledgeError, knowledgeSection, knowledgeTools } from "../../../core/mod.ts";
import { createHashEmbedder } from "../../../memory/embed/hash.ts";
import { createTextAnalyzer } from "../../../memory/text/keywords.ts";
import { checkKnowledgeName, KnowledgeStore } from "../../../memory/knowledge/base.ts";

const analyzer = await createTextAnalyzer();

async function withKb(fn: (kb: KnowledgeStore, dir: string, outside: string) => Promise<void>) {
  const root = await Deno.makeTempDir({ prefix: "homeagent-kb-" });
  const dir = join(root, "knowledge");
  const outside = join(root, "outside");
  await Deno.mkdir(outside);
  const kb = new KnowledgeStore({ dir, embedder: createHashEmbedder({ dim: 128 }), analyzer });
  try {
    await fn(kb, dir, outside);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("checkKnowledgeName refuses names that escape or blur the folder", () => {
  const bad = [
    "",
    "../x",
    "a/../../x",
    "/etc/passwd",
    "a\\b",
    "a\0b",
    "a//b",
    "a/",
    ".hidden",
    "./a",
    "C:/x",
  ];
  for (const name of bad) {
    assert.throws(
      () => checkKnowledgeName(name),
      (e: unknown) =>
        e instanceof KnowledgeError && e.code === "knowledge_bad_name" &&
        e.message.startsWith("Cannot use knowledge name"),
      name,
    );
  }
  assert.deepEqual(checkKnowledgeName("recipes/dumplings"), ["recipes", "dumplings"]);
});

Deno.test("KnowledgeStore refuses a name whose folder is a symlink leading out", async () => {
  await withKb(async (kb, dir, outside) => {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.symlink(outside, join(dir, "link"));
    await assert.rejects(() => kb.create("link/secret", "x"), /leads out of the knowledge folder/);
    await assert.rejects(() => kb.read("link/secret"), KnowledgeError);
    assert.deepEqual([...Deno.readDirSync(outside)], []);
    await Deno.writeTextFile(join(outside, "content.md"), "# Outside\nsecret words");
    assert.deepEqual(await kb.list(), []); // symlinks are never walked
  });
});

Deno.test("KnowledgeStore creates entries with categories and lists and searches them", async () => {
  await withKb(async (kb) => {
    const entry = await kb.create(
      "recipes/dumplings",
      "# Pork dumplings\nMix pork, cabbage and ginger; fold and boil.",
    );
    assert.deepEqual([entry.name, entry.category, entry.title], [
      "recipes/dumplings",
      "recipes",
      "Pork dumplings",
    ]);
    await kb.create(
      "garden/tomatoes",
      "# Tomatoes\nWater tomatoes in the morning; stake them early.",
    );
    await assert.rejects(() => kb.create("garden/tomatoes", "again"), /exists/);
    await kb.create("garden/tomatoes", "# Tomatoes\nWater deeply twice a week.", {
      overwrite: true,
    });
    assert.deepEqual((await kb.list({ category: "garden" })).map((e) => e.name), [
      "garden/tomatoes",
    ]);
    const hits = await kb.search("how do I fold dumplings with cabbage", { k: 2 });
    assert.equal(hits[0]?.entry.name, "recipes/dumplings");
    assert.ok(hits[0]!.coverage > 0);
    const section = await knowledgeSection(kb, "dumplings cabbage ginger");
    assert.equal(section?.title, "Knowledge");
    assert.equal(section?.kind, "knowledge");
    assert.match(section!.lines[0]!, /^- recipes\/dumplings: Mix pork/);
    assert.equal(await knowledgeSection(kb, "quantum chromodynamics lecture"), undefined);
  });
});

Deno.test("KnowledgeStore picks up added, changed and removed files on the next query", async () => {
  await withKb(async (kb, dir) => {
    await kb.create("notes/wifi", "# Wifi\nThe router password is on the fridge.");
    assert.equal((await kb.search("router password")).length, 1);
    await Deno.mkdir(join(dir, "notes/boiler"), { recursive: true });
    await Deno.writeTextFile(
      join(dir, "notes/boiler/content.md"),
      "# Boiler\nBleed the radiators each autumn.",
    );
    assert.equal((await kb.search("radiators autumn"))[0]?.entry.name, "notes/boiler");
    await Deno.writeTextFile(
      join(dir, "notes/boiler/content.md"),
      "# Boiler\nService the boiler every spring with Acme.",
    );
    assert.equal((await kb.search("acme spring service"))[0]?.entry.name, "notes/boiler");
    await Deno.remove(join(dir, "notes/wifi"), { recursive: true });
    assert.deepEqual((await kb.list()).map((e) => e.name), ["notes/boiler"]);
    assert.equal(kb.size(), 1);
  });
});

Deno.test("knowledge tools create, list and search, and a bad name is an error result", async () => {
  await withKb(async (kb) => {
    const tools = new Map(knowledgeTools(kb).map((t) => [t.name, t]));
    const ctx = { signal: new AbortController().signal, turnId: "t", callId: "c" };
    assert.equal(tools.get("knowledge_create")!.plugin, "core");
    const made = await tools.get("knowledge_create")!.handler({
      name: "pets/cat",
      content: "# Mimi\nMimi eats at 7.",
    }, ctx);
    assert.match(String(made), /Saved knowledge entry "pets\/cat"/);
    const refused = await tools.get("knowledge_create")!.handler({
      name: "../escape",
      content: "x",
    }, ctx);
    assert.deepEqual(typeof refused === "object" && refused.isError, true);
    assert.match(String(await tools.get("knowledge_list")!.handler({}, ctx)), /pets\/cat — Mimi/);
    assert.match(
      String(await tools.get("knowledge_search")!.handler({ query: "when does Mimi eat" }, ctx)),
      /Mimi eats at 7/,
    );
  });
});
