import assert from "node:assert/strict";
import { join } from "node:path";
import { HomeAgentError } from "../../../core/mod.ts";
import { createHashEmbedder, GraphDB, isSingleValued } from "../../../memory/mod.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

function openGraph(options: { embedder?: boolean } = {}) {
  const clock = {
    t: T0,
    now() {
      return this.t;
    },
  };
  const graph = GraphDB.open({
    path: ":memory:",
    clock,
    embedder: options.embedder ? createHashEmbedder() : undefined,
  });
  return Object.assign(graph, { clock, [Symbol.dispose]: () => graph.close() });
}

const facts = (r: { relations: { source: string; type: string; target: string }[] }) =>
  r.relations.map((x) => `${x.source} ${x.type} ${x.target}`).sort();

Deno.test("GraphDB.recall walks depth 1 and depth 2 over active relations in both directions", async () => {
  using graph = openGraph();
  await graph.commit([
    { subject: "Ann", predicate: "sister_of", object: "Bo" },
    { subject: "Bo", predicate: "works_at", object: "Acme" },
    { subject: "Acme", predicate: "located_in", object: "Oslo" },
    { subject: "Cy", predicate: "knows", object: "Ann" },
  ]);
  const one = await graph.recall({ keywords: ["Ann"], depth: 1 });
  assert.deepEqual(facts(one), ["Ann sister_of Bo", "Cy knows Ann"]);
  const two = await graph.recall({ keywords: ["Ann"], depth: 2 });
  assert.deepEqual(facts(two), ["Ann sister_of Bo", "Bo works_at Acme", "Cy knows Ann"]);
  assert.equal(two.entities[0]!.name, "Ann", "the seed comes first");
  assert.equal(two.relations.slice(0, 2).every((r) => [r.source, r.target].includes("Ann")), true);
  assert.deepEqual(facts(await graph.recall({ keywords: ["nobody-here"] })), []);
});

Deno.test("GraphDB.recall without keywords gives the most mentioned entities and newest facts", async () => {
  using graph = openGraph();
  await graph.commit([{ subject: "Ann", predicate: "likes", object: "tea" }]);
  graph.clock.t += 1000;
  await graph.commit([{ subject: "Ann", predicate: "likes", object: "jazz" }]);
  const view = await graph.recall({ keywords: [], limit: 1 });
  assert.equal(view.entities[0]!.name, "Ann");
  assert.deepEqual(facts(view), ["Ann likes jazz"]);
});

Deno.test("GraphDB.commit upserts entities by normalised name and reinforces identical facts", async () => {
  using graph = openGraph();
  const first = await graph.commit([
    {
      subject: "Ann  Smith",
      subjectType: "person",
      predicate: "Likes",
      object: "Tea",
      confidence: 0.5,
    },
  ]);
  assert.deepEqual(first, { entities: 2, relations: 1, reinforced: 0, closed: 0 });
  const again = await graph.commit([
    { subject: " ann smith ", predicate: "likes", object: "tea", confidence: 0.5, turnIds: ["t2"] },
  ]);
  assert.deepEqual(again, { entities: 2, relations: 0, reinforced: 1, closed: 0 });
  const ann = (await graph.entity("ANN SMITH"))!;
  assert.equal(ann.name, "Ann Smith");
  assert.equal(ann.type, "person");
  assert.equal(ann.mentions, 2);
  const [fact] = (await graph.recall({ keywords: ["ann smith"] })).relations;
  assert.equal(fact!.confidence, 0.75, "noisy-or of two 0.5 statements");
  assert.equal(fact!.mentions, 2);
  assert.deepEqual(fact!.turnIds, ["t2"]);
  assert.deepEqual(await graph.stats(), {
    entities: 2,
    relations: 1,
    closed: 0,
    deleted: 0,
    sentences: 0,
  });
  await assert.rejects(graph.commit([{ subject: " ", predicate: "p", object: "o" }]), TypeError);
});

Deno.test("GraphDB closes the old value of a functional predicate: history keeps both", async () => {
  using graph = openGraph();
  await graph.commit([{ subject: "Ann", predicate: "lives_in", object: "Oslo", turnIds: ["t1"] }]);
  await graph.commit([{ subject: "Ann", predicate: "likes", object: "tea" }]);
  graph.clock.t += DAY;
  const moved = await graph.commit([{ subject: "Ann", predicate: "lives in", object: "Bergen" }]);
  assert.equal(moved.closed, 1);
  await graph.commit([{ subject: "Ann", predicate: "likes", object: "coffee" }]);
  assert.deepEqual(facts(await graph.recall({ keywords: ["Ann"] })), [
    "Ann likes coffee",
    "Ann likes tea",
    "Ann lives_in Bergen",
  ]);
  const history = await graph.history("Ann");
  const oslo = history.find((r) => r.target === "Oslo")!;
  assert.equal(oslo.validFrom, T0);
  assert.equal(oslo.validTo, T0 + DAY);
  assert.deepEqual(oslo.turnIds, ["t1"]);
  assert.equal(history.find((r) => r.target === "Bergen")!.validTo, undefined);
  assert.deepEqual(
    facts(await graph.recall({ keywords: ["Oslo"] })),
    [],
    "closed facts are not walked",
  );

  // An old fact learned late is stored closed and leaves the newer one open.
  await graph.commit([{
    subject: "Ann",
    predicate: "lives_in",
    object: "Paris",
    validFrom: T0 - DAY,
  }]);
  const paris = (await graph.history("Ann")).find((r) => r.target === "Paris")!;
  assert.equal(paris.validTo, T0 + DAY);
  assert.deepEqual(
    facts(await graph.recall({ keywords: ["Ann"] })).filter((f) => f.includes("lives")),
    [
      "Ann lives_in Bergen",
    ],
  );
  assert.equal(isSingleValued("居住地"), true);
  assert.equal(isSingleValued("喜欢"), false);
  assert.equal(isSingleValued("has_pet"), false);
  assert.equal(isSingleValued("trait:mood"), true);
});

Deno.test("GraphDB keeps Chinese and English names, sentences and turn ids", async () => {
  using graph = openGraph();
  await graph.commit([
    {
      subject: "小明",
      subjectType: "person",
      predicate: "居住地",
      object: "北京",
      sentence: "我叫小明，我住在北京",
      turnIds: ["zh-1"],
      sessionId: "s1",
    },
    { subject: "小明", predicate: "喜欢", object: "乒乓球", turnIds: ["zh-2"] },
  ]);
  graph.clock.t += DAY;
  await graph.commit([{ subject: "小明", predicate: "居住地", object: "上海", turnIds: ["zh-3"] }]);
  const found = await graph.recall({ keywords: ["小明"] });
  assert.deepEqual(facts(found), ["小明 喜欢 乒乓球", "小明 居住地 上海"]);
  assert.deepEqual(found.relations.find((r) => r.target === "上海")!.turnIds, ["zh-3"]);
  const beijing = (await graph.history("小明")).find((r) => r.target === "北京")!;
  assert.equal(beijing.sentence, "我叫小明，我住在北京");
  assert.equal(beijing.sessionId, "s1");
  assert.deepEqual(beijing.turnIds, ["zh-1"]);
  assert.deepEqual(facts(await graph.recall({ keywords: ["乒乓"], depth: 1 })), [
    "小明 喜欢 乒乓球",
  ]);
});

Deno.test("GraphDB.merge re-points facts, sums mentions, keeps aliases and folds duplicates", async () => {
  using graph = openGraph({ embedder: true });
  await graph.commit([
    { subject: "Ann", predicate: "likes", object: "tea", turnIds: ["t1"] },
    { subject: "Ann", predicate: "lives_in", object: "Oslo" },
  ]);
  graph.clock.t += DAY;
  await graph.commit([
    { subject: "Annie", predicate: "likes", object: "tea", turnIds: ["t2"] },
    { subject: "Annie", predicate: "lives_in", object: "Bergen" },
    { subject: "Bo", predicate: "friend_of", object: "Annie" },
    { subject: "Annie", predicate: "same_as", object: "Ann" },
  ]);
  const result = await graph.merge("Ann", "annie");
  assert.equal(result.entity.name, "Ann");
  assert.deepEqual(result.entity.aliases, ["Annie"]);
  assert.equal(result.entity.mentions, 3 + 4);
  assert.equal(result.moved, 3);
  assert.equal(result.folded, 2, "the same_as self-loop and the duplicate likes");
  assert.equal(await graph.entity("Annie").then((e) => e?.id), result.entity.id, "alias resolves");
  assert.deepEqual(facts(await graph.recall({ keywords: ["Ann"], depth: 1 })), [
    "Ann likes tea",
    "Ann lives_in Bergen",
    "Bo friend_of Ann",
  ]);
  const tea = (await graph.recall({ keywords: ["tea"], depth: 1 })).relations[0]!;
  assert.deepEqual(tea.turnIds, ["t1", "t2"]);
  assert.equal(tea.mentions, 2);
  assert.equal((await graph.history("Ann")).find((r) => r.target === "Oslo")!.validTo, T0 + DAY);
  await graph.commit([{ subject: "annie", predicate: "likes", object: "jazz" }]);
  assert.equal((await graph.entity("Ann"))!.mentions, 8, "a mention of the alias counts for Ann");
  await assert.rejects(
    graph.merge("Ann", "Annie"),
    (e: unknown) => e instanceof HomeAgentError && e.code === "graph_conflict",
  );
  await assert.rejects(graph.merge("Ann", "Zed"), /No entity named "Zed"/);
});

Deno.test("GraphDB.purge erases an entity, its facts and orphaned sentences", async () => {
  using graph = openGraph();
  await graph.commit([
    { subject: "Ann", predicate: "likes", object: "tea", sentence: "Ann likes tea" },
    { subject: "Bo", predicate: "likes", object: "tea", sentence: "Bo likes tea" },
  ]);
  assert.deepEqual(await graph.purge("ann"), { relations: 1, sentences: 1 });
  assert.equal(await graph.entity("Ann"), undefined);
  assert.deepEqual(facts(await graph.recall({ keywords: ["tea"] })), ["Bo likes tea"]);
  assert.equal((await graph.stats()).sentences, 1);
  await assert.rejects(graph.purge("Ann"), /No entity named "Ann"/);
});

Deno.test("GraphDB.deleteEntity retires facts into history; a new mention revives the entity", async () => {
  using graph = openGraph();
  await graph.commit([{ subject: "Ann", predicate: "likes", object: "tea" }]);
  assert.deepEqual(await graph.deleteEntity("Ann"), { relations: 1 });
  assert.deepEqual(facts(await graph.recall({ keywords: ["Ann"] })), []);
  assert.equal((await graph.history("Ann"))[0]!.status, "deleted");
  assert.equal((await graph.stats()).deleted, 1);
  await graph.commit([{ subject: "Ann", predicate: "likes", object: "jazz" }]);
  assert.deepEqual(facts(await graph.recall({ keywords: ["Ann"] })), ["Ann likes jazz"]);
});

Deno.test("GraphDB edits entities (rename keeps an alias, clash refused) and relations", async () => {
  using graph = openGraph({ embedder: true });
  await graph.commit([
    { subject: "Anne", predicate: "lives_in", object: "Oslo" },
    { subject: "Bo", predicate: "likes", object: "tea" },
  ]);
  const renamed = await graph.editEntity("anne", { name: "Ann", type: "Person" });
  assert.equal(renamed.name, "Ann");
  assert.equal(renamed.type, "person");
  assert.deepEqual(renamed.aliases, ["Anne"]);
  assert.equal((await graph.entity("Anne"))!.id, renamed.id);
  await assert.rejects(graph.editEntity("Ann", { name: "bo" }), /use memory_merge/);

  const [fact] = (await graph.recall({ keywords: ["Ann"] })).relations;
  graph.clock.t += DAY;
  const edited = await graph.editRelation(fact!.id, { target: "Bergen", confidence: 0.4 });
  assert.equal(edited.target, "Bergen");
  assert.equal(edited.confidence, 0.4);
  const closed = await graph.editRelation(fact!.id, { close: true });
  assert.equal(closed.validTo, T0 + DAY);
  assert.deepEqual(facts(await graph.recall({ keywords: ["Ann"] })), []);
  const deleted = await graph.editRelation(fact!.id, { status: "deleted" });
  assert.equal(deleted.status, "deleted");
  await assert.rejects(graph.editRelation(999, { status: "deleted" }), /No fact with id 999/);
});

Deno.test("GraphDB.introspect and neighbourhood by type", async () => {
  using graph = openGraph();
  await graph.commit([
    {
      subject: "Ann",
      subjectType: "person",
      predicate: "sister_of",
      object: "Bo",
      objectType: "person",
    },
    { subject: "Bo", predicate: "friend_of", object: "Cy", objectType: "person" },
    { subject: "Bo", predicate: "works_at", object: "Acme", objectType: "company" },
    { subject: "Acme", predicate: "employs", object: "Dee", objectType: "person" },
  ]);
  const view = await graph.introspect({ top: 1, recent: 2 });
  assert.equal(view.entities, 5);
  assert.equal(view.relations, 4);
  assert.equal(view.topEntities[0]!.name, "Bo");
  assert.equal(view.recentRelations.length, 2);
  const people = await graph.neighbourhood("Ann", { depth: 3, types: ["person"] });
  assert.deepEqual(people.entities.map((e) => e.name).sort(), ["Ann", "Bo", "Cy"]);
  assert.deepEqual(facts(people), ["Ann sister_of Bo", "Bo friend_of Cy"]);
});

Deno.test("GraphDB seeds recall from entity vectors and re-embeds stale ones", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-graph-" });
  try {
    const path = join(dir, "graph.db");
    const plain = GraphDB.open({ path, clock: { now: () => T0 } });
    await plain.commit([{
      subject: "Ann",
      subjectType: "person",
      predicate: "likes",
      object: "tea",
    }]);
    plain.close();
    const embedder = createHashEmbedder();
    const graph = GraphDB.open({ path, clock: { now: () => T0 }, embedder });
    try {
      const [query] = await embedder.embed(["Where does Ann live now?"]);
      assert.deepEqual(graph.vectorSeeds(query!), [], "no vectors yet");
      assert.equal(await graph.reembedStale(), 2);
      assert.equal(await graph.reembedStale(), 0);
      assert.deepEqual(graph.vectorSeeds(query!), [(await graph.entity("Ann"))!.id]);
      const found = await graph.recall({ keywords: [], vector: query });
      assert.deepEqual(facts(found), ["Ann likes tea"]);
    } finally {
      graph.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GraphDB loads its entity vectors at the first vector recall, not at open", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-graph-" });
  try {
    const path = join(dir, "graph.db");
    const embedder = createHashEmbedder();
    const fact = { subject: "Ann", subjectType: "person", predicate: "likes", object: "tea" };
    const first = GraphDB.open({ path, clock: { now: () => T0 }, embedder });
    await first.commit([fact]);
    first.close();
    const graph = GraphDB.open({ path, clock: { now: () => T0 }, embedder });
    try {
      assert.equal(graph.vectorBytes(), 0, "an idle graph must not load the int8 matrix");
      await graph.commit([{
        subject: "Bo",
        subjectType: "person",
        predicate: "likes",
        object: "chess",
      }]);
      const [ann, bo] = await embedder.embed(["Ann person", "Bo person"]);
      assert.equal(graph.vectorSeeds(ann!)[0], (await graph.entity("Ann"))!.id);
      assert.ok(graph.vectorBytes() > 0);
      assert.equal(
        graph.vectorSeeds(bo!)[0],
        (await graph.entity("Bo"))!.id,
        "written before the load",
      );
    } finally {
      graph.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
