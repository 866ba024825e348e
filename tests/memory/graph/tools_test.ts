import assert from "node:assert/strict";
import {
  graphMemoryTools,
  graphTools,
  OverlayGraph,
  parseToolArguments,
  type RegisteredTool,
  socialTools,
  type ToolResult,
} from "../../../core/mod.ts";
import {
  createTextAnalyzer,
  GraphDB,
  GraphIndexer,
  MEMORY_INDEX_HINT,
} from "../../../memory/mod.ts";
import type { MarkLifetime } from "../../../memory/recall/marks.ts";
import { ManualClock } from "../../fakes/clock.ts";

const T0 = Date.UTC(2026, 0, 1);

const seen = ({ name, description, parameters }: RegisteredTool) => ({
  name,
  description,
  parameters,
});

async function setup(lifetime?: MarkLifetime) {
  const graph = GraphDB.open({ path: ":memory:", clock: { now: () => T0 } });
  const clock = new ManualClock(T0);
  const indexer = new GraphIndexer({
    graph,
    analyzer: await createTextAnalyzer(),
    clock,
    recalledCapacity: 3,
    ...(lifetime ? { recalledFor: () => lifetime } : {}),
  });
  const tools = new Map<string, RegisteredTool>(
    [
      ...graphTools(graph, { onRecalled: (ids) => indexer.markRecalled(ids) }),
      ...socialTools(graph),
    ]
      .map((t) => [t.name, t]),
  );
  const call = async (name: string, args: Record<string, unknown>, turnId = "turn-1") => {
    const tool = tools.get(name)!;
    const parsed = parseToolArguments(tool, { id: "c1", name, arguments: JSON.stringify(args) });
    if (!parsed.ok) return { content: parsed.error, isError: true } as ToolResult;
    try {
      const out = await tool.handler(parsed.args, {
        signal: new AbortController().signal,
        turnId,
        callId: "c1",
      });
      return typeof out === "string" ? { content: out } : out;
    } catch (error) {
      return { content: (error as Error).message, isError: true } as ToolResult;
    }
  };
  return { graph, indexer, clock, tools, call, [Symbol.dispose]: () => graph.close() };
}

Deno.test("graph tools reject bad arguments by schema and by handler with clear errors", async () => {
  using t = await setup();
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ["memory_recall", {}, /Invalid arguments for "memory_recall"/],
    ["memory_recall", { keywords: [] }, /Invalid arguments/],
    ["memory_recall", { keywords: ["a"], depth: 9 }, /Invalid arguments/],
    ["memory_recall", { keywords: ["  "] }, /only blank strings/],
    ["memory_commit", { triples: [] }, /Invalid arguments/],
    ["memory_commit", { triples: [{ subject: "a", predicate: "b" }] }, /Invalid arguments/],
    [
      "memory_commit",
      { triples: [{ subject: " ", predicate: "b", object: "c" }] },
      /blank subject/,
    ],
    ["memory_merge", { keep: "a" }, /Invalid arguments/],
    ["memory_merge", { keep: "a", drop: "b" }, /No entity named "a"/],
    ["memory_purge", { name: "" }, /Invalid arguments/],
    ["memory_purge", { name: "ghost" }, /No entity named "ghost"/],
    ["memory_edit", {}, /exactly one of "entity" or "relation_id"/],
    ["memory_edit", { entity: "a", relation_id: 1 }, /exactly one/],
    ["memory_edit", { entity: "a" }, /needs "name" or "type"/],
    ["memory_edit", { entity: "a", status: "deleted" }, /apply to a relation/],
    ["memory_edit", { relation_id: 1 }, /needs predicate, object/],
    ["memory_edit", { relation_id: 7, close: true }, /No fact with id 7/],
    ["memory_edit", { relation_id: 1, status: "gone" }, /Invalid arguments/],
    ["memory_delete_entity", { name: "ghost" }, /No entity named "ghost"/],
    ["memory_introspect", { top: 0 }, /Invalid arguments/],
    ["person_query", { name: "ghost" }, /No person named "ghost"/],
    ["person_set_trait", { person: "Ann", trait: "a:b", value: "c" }, /Invalid arguments/],
    ["person_relate", { person: "Ann", relation: "knows" }, /Invalid arguments/],
    ["person_network", { name: "Ann", depth: 4 }, /Invalid arguments/],
  ];
  for (const [name, args, pattern] of bad) {
    const result = await t.call(name, args);
    assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`);
    assert.match(result.content, pattern, `${name} ${JSON.stringify(args)}`);
  }
});

Deno.test("memory_commit keeps sentence_text and the turn id; memory_recall shows ids and history", async () => {
  using t = await setup();
  const committed = await t.call("memory_commit", {
    triples: [
      { subject: "Ann", predicate: "lives_in", object: "Oslo", subject_type: "person" },
      { subject: "Ann", predicate: "likes", object: "tea", confidence: 0.8 },
    ],
    sentence_text: "Ann lives in Oslo and likes tea",
  }, "turn-7");
  assert.match(committed.content, /2 new, 0 already known/);
  await t.call("memory_commit", {
    triples: [{ subject: "Ann", predicate: "lives_in", object: "Bergen" }],
  }, "turn-8");
  const [fact] = (await t.graph.history("Ann")).filter((r) => r.target === "Oslo");
  assert.deepEqual(fact!.turnIds, ["turn-7"]);
  assert.equal(fact!.sentence, "Ann lives in Oslo and likes tea");
  const recalled = await t.call("memory_recall", { keywords: ["Ann"], include_history: true });
  assert.match(recalled.content, /^#\d+ Ann —lives_in→ Bergen \(2026-01-01\)$/m);
  assert.match(recalled.content, /Ann —likes→ tea \(2026-01-01, confidence 0\.80\)/);
  assert.match(recalled.content, /History:\n#\d+ Ann —lives_in→ Oslo \(2026-01-01 – 2026-01-01\)/);
  const none = await t.call("memory_recall", { keywords: ["nobody"] });
  assert.equal(none.content, 'No facts found for ["nobody"].');
});

Deno.test("memory_merge, memory_edit, memory_delete_entity, memory_purge and memory_introspect", async () => {
  using t = await setup();
  await t.call("memory_commit", {
    triples: [
      { subject: "Ann", predicate: "likes", object: "tea" },
      { subject: "Annie", predicate: "likes", object: "jazz" },
      { subject: "Bo", predicate: "knows", object: "Ann" },
    ],
  });
  assert.match(
    (await t.call("memory_merge", { keep: "Ann", drop: "Annie" })).content,
    /Merged "Annie" into "Ann": 1 facts moved/,
  );
  assert.match(
    (await t.call("memory_edit", { entity: "ann", type: "person" })).content,
    /"Ann" \(person\)/,
  );
  const id = (await t.graph.history("Ann")).find((r) => r.target === "jazz")!.id;
  const edited = await t.call("memory_edit", {
    relation_id: id,
    predicate: "loves",
    confidence: 0.5,
  });
  assert.match(edited.content, new RegExp(`#${id} Ann —loves→ jazz`));
  const intro = await t.call("memory_introspect", { top: 2 });
  assert.match(
    intro.content,
    /^Entities 4; facts 3 active, 0 superseded, 0 deleted; sentences 0\./,
  );
  assert.match(intro.content, /Most mentioned: Ann \(person, 3\)/);
  assert.match(
    (await t.call("memory_delete_entity", { name: "Bo" })).content,
    /Deleted "Bo" and 1 of its facts/,
  );
  assert.match((await t.call("memory_purge", { name: "tea" })).content, /Erased "tea": 1 facts/);
  assert.deepEqual(await t.graph.stats(), {
    entities: 2,
    relations: 1,
    closed: 0,
    deleted: 1,
    sentences: 0,
  });
});

Deno.test("A resident's memory_recall and memory_commit are the main agent's, over its overlay", async () => {
  using t = await setup();
  const overlay = new OverlayGraph(t.graph, { clock: { now: () => T0 } });
  const resident = graphMemoryTools(overlay);
  const main = graphTools(t.graph).slice(0, 2);
  assert.deepEqual(resident.map(seen), main.map(seen), "same names, schemas and descriptions");

  await t.call("memory_commit", {
    triples: [{ subject: "Ann", predicate: "lives_in", object: "Oslo" }],
  });
  await t.call("memory_commit", {
    triples: [{ subject: "Ann", predicate: "lives_in", object: "Bergen" }],
  });
  const ctx = { signal: new AbortController().signal, turnId: "r-1", callId: "c" };
  await resident[1]!.handler(
    { triples: [{ subject: "Ann", predicate: "likes", object: "tea" }] },
    ctx,
  );
  const out = await resident[0]!.handler({ keywords: ["Ann"], include_history: true }, ctx);
  const text = typeof out === "string" ? out : out.content;
  assert.match(text, /^#-\d+ Ann —likes→ tea \(2026-01-01\)$/m, "its own fact");
  assert.match(text, /^#\d+ Ann —lives_in→ Bergen/m, "the main graph's");
  assert.match(text, /History:\n#\d+ Ann —lives_in→ Oslo \(2026-01-01 – 2026-01-01\)/);
  assert.equal((await t.graph.history("Ann")).some((r) => r.target === "tea"), false);
});

Deno.test("person tools: traits supersede, relationships, profile and network", async () => {
  using t = await setup();
  await t.call("person_set_trait", { person: "Ann", trait: "mood", value: "calm" });
  const changed = await t.call("person_set_trait", {
    person: "Ann",
    trait: "mood",
    value: "happy",
  });
  assert.match(changed.content, /previous value is kept in history/);
  await t.call("person_relate", { person: "Ann", relation: "sister_of", other: "Bo" });
  await t.call("person_relate", { person: "Bo", relation: "friend_of", other: "小明" });
  await t.call("memory_commit", {
    triples: [{ subject: "Ann", predicate: "likes", object: "tea" }],
  });
  const profile = await t.call("person_query", { name: "ann" });
  assert.match(
    profile.content,
    /^Ann \(mentioned 4 times\)\nTraits: mood: happy\nRelationships:\n- Ann —sister_of→ Bo/,
  );
  assert.match(profile.content, /Other facts:\n- Ann —likes→ tea/);
  const network = await t.call("person_network", { name: "Ann", depth: 2 });
  assert.match(network.content, /^Ann knows of: Bo, 小明\n/);
  assert.doesNotMatch(network.content, /tea|happy/);
});

Deno.test("GraphIndexer.markRecalled keeps tool-fetched facts out of the [Memory Index], FIFO-bounded", async () => {
  using t = await setup();
  await t.graph.commit([
    { subject: "Ann", predicate: "likes", object: "tea" },
    { subject: "Ann", predicate: "lives_in", object: "Oslo" },
  ]);
  const before = await t.indexer.section("What does Ann like?");
  assert.equal(before!.title, "Memory Index");
  assert.equal(before!.kind, "graph");
  assert.deepEqual(before!.lines, [
    "- Ann —lives_in→ Oslo (2026-01-01)",
    "- Ann —likes→ tea (2026-01-01)",
    MEMORY_INDEX_HINT,
  ]);
  await t.call("memory_recall", { keywords: ["tea"], depth: 1 });
  const after = await t.indexer.section("What does Ann like?");
  assert.deepEqual(after!.lines, ["- Ann —lives_in→ Oslo (2026-01-01)", MEMORY_INDEX_HINT]);
  await t.call("memory_recall", { keywords: ["Ann"] });
  assert.equal(await t.indexer.section("What does Ann like?"), undefined, "nothing fresh left");
  t.indexer.markRecalled([101, 102, 103]); // capacity 3: the oldest ids fall out
  assert.equal(t.indexer.wasRecalled(1), false);
  assert.equal(t.indexer.wasRecalled(103), true);
  assert.equal((await t.indexer.section("What does Ann like?"))!.lines.length, 3);
  assert.equal(await t.indexer.section("hello there"), undefined, "no seed, no section");
});

Deno.test("a recalled mark expires after its turns: the fact is in the [Memory Index] again", async () => {
  using t = await setup({ turns: 2, ms: 3_600_000 });
  await t.graph.commit([{ subject: "Ann", predicate: "likes", object: "tea" }]);
  const lines = async () => (await t.indexer.section("What does Ann like?"))?.lines.length ?? 0;
  assert.equal(await lines(), 2, "turn 1: the fact and the hint");
  await t.call("memory_recall", { keywords: ["tea"] }); // fetched in turn 1
  assert.equal(await lines(), 0, "turn 2: left out");
  assert.equal(await lines(), 0, "turn 3: left out (two turns after its own)");
  assert.equal(await lines(), 2, "turn 4: back");
  assert.equal(t.indexer.wasRecalled(1), false);
});

Deno.test("a recalled mark expires after its time, however few the turns", async () => {
  using t = await setup({ turns: 100, ms: 30 * 60_000 });
  await t.graph.commit([{ subject: "Ann", predicate: "likes", object: "tea" }]);
  await t.call("memory_recall", { keywords: ["tea"] });
  assert.equal(await t.indexer.section("What does Ann like?"), undefined);
  t.clock.advance(29 * 60_000);
  assert.equal(await t.indexer.section("What does Ann like?"), undefined, "29 minutes: held");
  t.clock.advance(60_000);
  assert.equal((await t.indexer.section("What does Ann like?"))?.lines.length, 2, "30: back");
});
