/**
 * The graph's entity vectors keep their re-scored floats between recalls (issue 14): an edit,
 * a purge or a forget must never leave a recall scoring an entity by a float it no longer has.
 */
import assert from "node:assert/strict";
import type { Embedder, EmbedOptions } from "../../../core/mod.ts";
import { createHashEmbedder, GraphDB } from "../../../memory/mod.ts";

const T0 = Date.UTC(2026, 0, 1);

/** The hash space, failing while `failing` is set. */
function flaky(): Embedder & { failing: boolean } {
  const hash = createHashEmbedder();
  const embedder = {
    ...hash,
    failing: false,
    embed: (texts: string[], options?: EmbedOptions) =>
      embedder.failing ? Promise.reject(new Error("embedder down")) : hash.embed(texts, options),
  };
  return embedder;
}

Deno.test("a renamed entity whose re-embed failed is not seeded by its cached old vector", async () => {
  const embedder = flaky();
  const graph = GraphDB.open({ path: ":memory:", clock: { now: () => T0 }, embedder });
  try {
    await graph.commit([{
      subject: "Ann",
      subjectType: "person",
      predicate: "likes",
      object: "tea",
    }]);
    const [ann] = await embedder.embed(["Ann person"]);
    const id = (await graph.entity("Ann"))!.id;
    assert.deepEqual(graph.vectorSeeds(ann!), [id]);
    assert.deepEqual(graph.vectorSeeds(ann!), [id], "the second recall scores the cached float");
    embedder.failing = true;
    await graph.editEntity("Ann", { name: "Annabel" }); // its row's vector leaves the space
    assert.deepEqual(graph.vectorSeeds(ann!), []);
    embedder.failing = false;
    assert.equal(await graph.reembedStale(), 1);
    const [annabel] = await embedder.embed(["Annabel person"]);
    assert.deepEqual(graph.vectorSeeds(annabel!), [id]);
  } finally {
    graph.close();
  }
});

Deno.test("a purged or forgotten entity leaves no cached vector for recall", async () => {
  const embedder = createHashEmbedder();
  const graph = GraphDB.open({ path: ":memory:", clock: { now: () => T0 }, embedder });
  try {
    await graph.commit([
      { subject: "Bo", subjectType: "person", predicate: "likes", object: "chess" },
      { subject: "Cy", subjectType: "person", predicate: "likes", object: "jazz" },
    ]);
    const [bo, cy] = await embedder.embed(["Bo person", "Cy person"]);
    const boId = (await graph.entity("Bo"))!.id;
    const cyId = (await graph.entity("Cy"))!.id;
    assert.ok(graph.vectorSeeds(bo!).includes(boId));
    assert.ok(graph.vectorSeeds(cy!).includes(cyId));
    await graph.purge("Bo");
    assert.ok(!graph.vectorSeeds(bo!).includes(boId));
    await graph.forget("Cy");
    assert.ok(!graph.vectorSeeds(cy!).includes(cyId));
  } finally {
    graph.close();
  }
});
