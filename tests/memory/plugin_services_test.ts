import assert from "node:assert/strict";
import {
  ensureHome,
  memoryPluginServices,
  openMemory,
  registerMemoryDefaults,
} from "../../memory/mod.ts";
import { openTestRegistry } from "../fakes/config.ts";

Deno.test("Plugin memory services commit, recall, search knowledge and read people", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-plugin-services-" });
  using config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  const memory = await openMemory({
    paths: await ensureHome(home),
    config: config.registry,
    clock: config.clock,
    logger: config.logger,
  });
  try {
    const services = memoryPluginServices(memory);
    const { id } = await services.memoryCommit("My name is Ann. I live in Oslo.", ["note"], "ann");
    assert.match(id, /^d/);
    const facts = await services.memoryRecall("where does ann live", 5) as { object: string }[];
    assert.ok(facts.some((f) => f.object === "Oslo"), JSON.stringify(facts));
    assert.equal(((await services.docQuery("Oslo", 3)) as { id: string }[])[0]?.id, id);

    await services.knowledgeCreate("recipes/pancakes", "# Pancakes\nFlour, milk and eggs.");
    const hits = await services.knowledgeSearch("pancakes milk", 2) as { name: string }[];
    assert.equal(hits[0]?.name, "recipes/pancakes");

    const person = await services.socialGetPerson("ann") as { facts: { object: string }[] };
    assert.ok(person.facts.some((f) => f.object === "Oslo"));
    assert.equal(await services.socialGetPerson("nobody"), null);
    assert.ok((await services.socialGetRelations("ann")).length > 0);
  } finally {
    await memory.close();
    await Deno.remove(home, { recursive: true });
  }
});
