import assert from "node:assert/strict";
import { GraphDB } from "../../../memory/mod.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

function openGraph() {
  const clock = {
    t: T0,
    now() {
      return this.t;
    },
  };
  const graph = GraphDB.open({ path: ":memory:", clock });
  return Object.assign(graph, { clock, [Symbol.dispose]: () => graph.close() });
}

const facts = (r: { relations: { source: string; type: string; target: string }[] }) =>
  r.relations.map((x) => `${x.source} ${x.type} ${x.target}`).sort();

/** Ann moves from Oslo to Bergen on day 10; Rex the dog arrives on day 20. */
async function aYear(graph: ReturnType<typeof openGraph>) {
  await graph.commit([
    {
      subject: "Ann",
      subjectType: "person",
      predicate: "lives_in",
      object: "Oslo",
      objectType: "place",
    },
    { subject: "Ann", subjectType: "person", predicate: "likes", object: "tea" },
  ]);
  graph.clock.t = T0 + 10 * DAY;
  await graph.commit([
    {
      subject: "Ann",
      subjectType: "person",
      predicate: "lives_in",
      object: "Bergen",
      objectType: "place",
    },
  ]);
  graph.clock.t = T0 + 20 * DAY;
  await graph.commit([
    { subject: "Ann", predicate: "has_pet", object: "Rex", objectType: "animal" },
  ]);
}

Deno.test("GraphDB.browse: facts true at an instant, closed ones included; without a time only open ones", async () => {
  using graph = openGraph();
  await aYear(graph);
  assert.deepEqual(facts(await graph.browse({ validAt: T0 + 5 * DAY })), [
    "Ann likes tea",
    "Ann lives_in Oslo",
  ]);
  assert.deepEqual(facts(await graph.browse({ validAt: T0 + 15 * DAY })), [
    "Ann likes tea",
    "Ann lives_in Bergen",
  ]);
  assert.deepEqual(facts(await graph.browse({})), [
    "Ann has_pet Rex",
    "Ann likes tea",
    "Ann lives_in Bergen",
  ]);
  assert.deepEqual(facts(await graph.browse({ validAt: T0 - DAY })), []);
});

Deno.test("GraphDB.browse: changed since an instant, closings and deletions too", async () => {
  using graph = openGraph();
  await aYear(graph);
  assert.deepEqual(facts(await graph.browse({ changedSince: T0 + 10 * DAY })), [
    "Ann has_pet Rex",
    "Ann lives_in Bergen",
    "Ann lives_in Oslo", // closed on day 10
  ]);
  const tea = (await graph.browse({ keywords: ["tea"] })).relations[0]!;
  graph.clock.t = T0 + 30 * DAY;
  await graph.editRelation(tea.id, { status: "deleted" });
  const since = await graph.browse({ changedSince: T0 + 25 * DAY });
  assert.deepEqual(facts(since), ["Ann likes tea"]);
  assert.equal(since.relations[0]!.status, "deleted");
  assert.deepEqual(since.entities.map((e) => e.name).sort(), ["Ann", "tea"]);
});

Deno.test("GraphDB.browse: by entity type (either end) and by keyword, with the types counted", async () => {
  using graph = openGraph();
  await aYear(graph);
  assert.deepEqual(facts(await graph.browse({ types: ["animal"] })), ["Ann has_pet Rex"]);
  assert.deepEqual(facts(await graph.browse({ types: ["place", "animal"] })), [
    "Ann has_pet Rex",
    "Ann lives_in Bergen",
  ]);
  assert.deepEqual(facts(await graph.browse({ keywords: ["Rex"] })), ["Ann has_pet Rex"]);
  assert.deepEqual(await graph.browse({ keywords: ["nobody"] }), { entities: [], relations: [] });
  const types = await graph.entityTypes();
  assert.deepEqual(types.find((t) => t.type === "place"), { type: "place", entities: 2 });
  assert.deepEqual(types.find((t) => t.type === "person"), { type: "person", entities: 1 });
});

Deno.test("GraphDB.versions: every value a single-valued fact had, oldest first, closed and deleted ones too", async () => {
  using graph = openGraph();
  await aYear(graph);
  const bergen = (await graph.browse({ keywords: ["Bergen"] })).relations[0]!;
  const versions = await graph.versions(bergen.id);
  assert.deepEqual(versions.map((r) => [r.target, r.validFrom, r.validTo]), [
    ["Oslo", T0, T0 + 10 * DAY],
    ["Bergen", T0 + 10 * DAY, undefined],
  ]);
  // A predicate with many values: a fact's versions are its own (the same object), not siblings.
  const tea = (await graph.browse({ keywords: ["tea"] })).relations[0]!;
  await graph.commit([{ subject: "Ann", predicate: "likes", object: "jazz" }]);
  assert.deepEqual((await graph.versions(tea.id)).map((r) => r.target), [tea.target]);
  await assert.rejects(graph.versions(9999), /No fact with id 9999/);
});

Deno.test("GraphDB.editRelation reopens a closed fact (the undo of close), refused while another value is open", async () => {
  using graph = openGraph();
  await aYear(graph);
  const [oslo, bergen] = await graph.versions(
    (await graph.browse({ keywords: ["Bergen"] })).relations[0]!.id,
  );
  await assert.rejects(
    graph.editRelation(oslo!.id, { reopen: true }),
    (e: Error & { code?: string }) => e.code === "graph_conflict" && /Bergen/.test(e.message),
  );
  graph.clock.t = T0 + 40 * DAY;
  const closed = await graph.editRelation(bergen!.id, { close: true });
  assert.equal(closed.validTo, T0 + 40 * DAY);
  const open = await graph.editRelation(bergen!.id, { reopen: true });
  assert.equal(open.validTo, undefined);
  assert.deepEqual(facts(await graph.browse({ types: ["place"] })), ["Ann lives_in Bergen"]);
});
