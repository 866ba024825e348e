import assert from "node:assert/strict";
import { graphMemoryTools, InMemoryGraph, OverlayGraph } from "../../../core/mod.ts";

const facts = (recall: { relations: { source: string; type: string; target: string }[] }) =>
  recall.relations.map((r) => `${r.source} ${r.type} ${r.target}`).sort();

Deno.test("InMemoryGraph recalls by keyword with BFS and stores a repeated fact once", async () => {
  const graph = new InMemoryGraph();
  await graph.commit([
    { subject: "Alice", predicate: "lives_in", object: "Paris" },
    { subject: "Paris", predicate: "is_in", object: "France" },
    { subject: "Bob", predicate: "likes", object: "chess" },
  ]);
  const again = await graph.commit([{ subject: "alice", predicate: "LIVES_IN", object: "paris" }]);
  assert.equal(again.relations, 0);
  assert.deepEqual(facts(await graph.recall({ keywords: ["ali"] })), [
    "Alice lives_in Paris",
    "Paris is_in France",
  ]);
  assert.deepEqual(facts(await graph.recall({ keywords: ["alice"], depth: 1 })), [
    "Alice lives_in Paris",
  ]);
  assert.deepEqual(await graph.stats(), { entities: 5, relations: 3 });
});

Deno.test("OverlayGraph keeps writes out of main until reclaim and reads both", async () => {
  const main = new InMemoryGraph();
  await main.commit([{ subject: "Alice", predicate: "lives_in", object: "Paris" }]);
  const overlay = new OverlayGraph(main);
  await overlay.commit([{ subject: "Alice", predicate: "likes", object: "green tea" }]);

  assert.deepEqual(facts(await main.recall({ keywords: ["Alice"] })), ["Alice lives_in Paris"]);
  assert.deepEqual(facts(await overlay.recall({ keywords: ["Alice"] })), [
    "Alice likes green tea",
    "Alice lives_in Paris",
  ]);
  // A path through both stores: the temp fact reaches Alice, main knows where she lives.
  assert.deepEqual(facts(await overlay.recall({ keywords: ["tea"] })), [
    "Alice likes green tea",
    "Alice lives_in Paris",
  ]);
  assert.equal(overlay.pending().length, 1);

  assert.deepEqual(await overlay.reclaim(), { entities: 2, relations: 1 });
  assert.deepEqual(facts(await main.recall({ keywords: ["Alice"] })), [
    "Alice likes green tea",
    "Alice lives_in Paris",
  ]);
  assert.equal(overlay.pending().length, 0);
  assert.deepEqual(await overlay.reclaim(), { entities: 0, relations: 0 });
});

Deno.test("graphMemoryTools commit into and recall from the graph they are given", async () => {
  const clock = { now: () => Date.UTC(2026, 0, 1) };
  const main = new InMemoryGraph({ clock });
  const overlay = new OverlayGraph(main, { clock });
  const [recall, commit] = graphMemoryTools(overlay);
  const ctx = { signal: new AbortController().signal, turnId: "t", callId: "c" };
  const committed = await commit!.handler({
    triples: [{ subject: "Tom", predicate: "owns", object: "a bike" }],
    sentence_text: "Tom owns a bike",
  }, ctx);
  assert.equal(
    committed,
    "Committed 1 facts: 1 new, 0 already known (reinforced), 0 superseded facts closed.",
  );
  assert.deepEqual(overlay.pending().map((t) => [t.sentence, t.turnIds]), [
    ["Tom owns a bike", ["t"]],
  ]);
  assert.equal(
    await recall!.handler({ keywords: ["tom"] }, ctx),
    "#-3 Tom —owns→ a bike (2026-01-01)",
    "a temp-only fact carries a negative id",
  );
  assert.equal(
    await graphMemoryTools(main)[0]!.handler({ keywords: ["tom"] }, ctx),
    'No facts found for ["tom"].',
  );
  const bad = await recall!.handler({ keywords: [] }, ctx);
  assert.match(typeof bad === "string" ? bad : bad.content, /Invalid arguments.*keywords/);
});

Deno.test("InMemoryGraph counts a repeated fact as reinforced; OverlayGraph.history shows both stores", async () => {
  const main = new InMemoryGraph();
  await main.commit([{ subject: "Ann", predicate: "likes", object: "tea" }]);
  const overlay = new OverlayGraph(main);
  assert.deepEqual(
    await overlay.commit([
      { subject: "Ann", predicate: "likes", object: "tea" },
      { subject: "Ann", predicate: "lives_in", object: "Oslo" },
      { subject: "ann", predicate: "LIVES_IN", object: "oslo" },
    ]),
    { entities: 3, relations: 2, reinforced: 1, closed: 0 },
  );
  const history = await overlay.history("ANN");
  assert.deepEqual(history.map((r) => [r.id < 0, r.type, r.target]), [
    [true, "lives_in", "Oslo"],
    [false, "likes", "tea"],
  ]);
});
