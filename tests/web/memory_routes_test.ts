/**
 * The memory view's routes over a real graph (node:sqlite in memory): filters by entity type and
 * time, a fact's versions, close / reopen with its conflict, a document read whole, bad input.
 */
import assert from "node:assert/strict";
import { GraphDB } from "../../memory/mod.ts";
import { createApp, memoryPort } from "../../web/mod.ts";
import { bearer, fakeWeb } from "./_deps.ts";

const T0 = Date.UTC(2025, 0, 1), T1 = Date.UTC(2025, 6, 1);

async function served() {
  const clock = { t: T0, now: () => clock.t };
  const graph = GraphDB.open({ path: ":memory:", clock });
  await graph.commit([
    {
      subject: "Ann",
      subjectType: "person",
      predicate: "lives_in",
      object: "Oslo",
      objectType: "place",
    },
    {
      subject: "Ann",
      subjectType: "person",
      predicate: "has_pet",
      object: "Rex",
      objectType: "animal",
    },
  ]);
  clock.t = T1;
  await graph.commit([{
    subject: "Ann",
    predicate: "lives_in",
    object: "Bergen",
    objectType: "place",
  }]);
  const document = (id: string) =>
    Promise.resolve(
      id === "d1"
        ? {
          id,
          summary: "s",
          content: "[2025-01-02 09:30] web: hi",
          createdAt: T0,
          turnIds: ["t1"],
        }
        : undefined,
    );
  const memory = memoryPort({
    graph,
    context: { events: () => [] },
    documents: () => Promise.resolve([]),
    document,
  });
  const app = createApp({ ...fakeWeb().deps, memory });
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await app.request(path, {
      ...init,
      headers: { ...bearer, "content-type": "application/json" },
    });
    return { status: response.status, body: await response.json() };
  };
  return Object.assign(graph, { call, [Symbol.dispose]: () => graph.close() });
}

const edges = (body: { relations: { source: string; type: string; target: string }[] }) =>
  body.relations.map((r) => `${r.source} ${r.type} ${r.target}`).sort();

Deno.test("Memory routes filter the graph by entity type and by time, and list the types", async () => {
  using g = await served();
  const now = await g.call("/api/v1/memory/graph");
  assert.deepEqual(edges(now.body), ["Ann has_pet Rex", "Ann lives_in Bergen"]);
  assert.deepEqual(now.body.types.find((t: { type: string }) => t.type === "place"), {
    type: "place",
    entities: 2,
  });
  const animals = await g.call("/api/v1/memory/graph?types=Animal");
  assert.deepEqual(edges(animals.body), ["Ann has_pet Rex"]);
  const march = await g.call(`/api/v1/memory/graph?at=2025-03-01`);
  assert.deepEqual(edges(march.body), ["Ann has_pet Rex", "Ann lives_in Oslo"]);
  const since = await g.call(`/api/v1/memory/graph?since=${T1}`);
  assert.deepEqual(edges(since.body), ["Ann lives_in Bergen", "Ann lives_in Oslo"]);
  const bad = await g.call("/api/v1/memory/graph?at=someday");
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /^at: expected ms since 1970 or an ISO date/);
});

Deno.test("Memory routes give every version of a fact; close and reopen it; a second open value is refused", async () => {
  using g = await served();
  const bergen = (await g.call("/api/v1/memory/graph?q=Bergen")).body.relations
    .find((r: { target: string }) => r.target === "Bergen");
  const { body } = await g.call(`/api/v1/memory/relations/${bergen.id}/versions`);
  assert.deepEqual(
    body.versions.map((v: { target: string; validTo?: number }) => [v.target, v.validTo]),
    [
      ["Oslo", T1],
      ["Bergen", undefined],
    ],
  );
  const patch = (id: number, b: unknown) =>
    g.call(`/api/v1/memory/relations/${id}`, { method: "PATCH", body: JSON.stringify(b) });
  assert.equal((await patch(bergen.id, { close: true })).body.relation.validTo, T1);
  assert.equal((await patch(bergen.id, { reopen: true })).body.relation.validTo, undefined);
  const oslo = body.versions[0].id;
  const refused = await patch(oslo, { reopen: true });
  assert.equal(refused.status, 409);
  assert.match(refused.body.error.message, /"Bergen" is open now/);
  assert.equal((await patch(oslo, { close: true, reopen: true })).status, 400);
  assert.equal((await g.call("/api/v1/memory/relations/999/versions")).status, 404);
  assert.equal((await g.call("/api/v1/memory/relations/x/versions")).status, 400);
});

Deno.test("Memory routes read one document whole; a bad id is 400, an unknown one 404", async () => {
  using g = await served();
  const found = await g.call("/api/v1/memory/documents/d1");
  assert.equal(found.body.document.content, "[2025-01-02 09:30] web: hi");
  assert.equal((await g.call("/api/v1/memory/documents/d2")).status, 404);
  assert.equal((await g.call("/api/v1/memory/documents/..%2Fx")).status, 400);
});
