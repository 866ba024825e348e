import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "yaml";
import {
  createHashEmbedder,
  createTextAnalyzer,
  DocStore,
  exportMemory,
  GraphDB,
  importMemory,
} from "../../memory/mod.ts";
import { exportMemoryDir } from "../../memory/cli/markdown.ts";
import type { PortableStores } from "../../memory/portable.ts";
import { ManualClock } from "../fakes/clock.ts";
import { MemoryLogger } from "../fakes/logger.ts";
import { openTestHome, type TestHome } from "../fakes/memory_home.ts";

const analyzer = await createTextAnalyzer();
const DAY = 86_400_000;

function storesOf(home: TestHome): PortableStores {
  const { memory } = home;
  return {
    documents: memory.documents,
    graph: memory.graph.graph,
    context: memory.context,
    knowledge: memory.upkeep.knowledge,
  };
}

/** A home with something in every tier, and every kind of fact. */
async function fill(home: TestHome): Promise<void> {
  const { memory, clock } = home;
  const graph = memory.graph.graph;
  await graph.commit([
    { subject: "Ann", subjectType: "person", predicate: "lives_in", object: "Oslo" },
    { subject: "Ann", predicate: "likes", object: "tea", sentence: "Ann likes tea." },
    { subject: "Ann", predicate: "likes", object: "jazz", confidence: 0.6, turnIds: ["t1"] },
    { subject: "Ann", predicate: "trait:mood", object: "calm" },
    { subject: "Annie", predicate: "knows", object: "Bo" },
    { subject: "Mirelle", predicate: "knows", object: "Ann" },
  ]);
  clock.advance(DAY);
  await graph.commit([
    { subject: "Ann", predicate: "lives_in", object: "Bergen", sessionId: "s1" },
    { subject: "Kim", predicate: "spouse", object: "Lee", keepOthers: true },
    { subject: "Kim", predicate: "spouse", object: "Pat", keepOthers: true },
  ]);
  await graph.merge("Ann", "Annie");
  const jazz = (await graph.history("Ann")).find((r) => r.target === "jazz")!;
  await graph.editRelation(jazz.id, { close: true });
  await graph.deleteEntity("Bo");
  await memory.forget.forget("Mirelle");
  await memory.documents.insert({ content: "Ann plays the cello", source: "web", turnIds: ["t2"] });
  await memory.documents.insert({ content: "天气很好，我们去爬山", source: "cli", tags: ["trip"] });
  await memory.documents.query("cello", { k: 1, touch: true });
  memory.context.append({
    id: "e1",
    role: "user",
    source: "web",
    channel: "web",
    input: "What does Ann like?",
    turnIds: ["t3"],
    timestamp: clock.now(),
  });
  memory.context.append({
    id: "e2",
    role: "agent",
    source: "web",
    channel: "web",
    response: "Tea.",
    tools: [{ name: "memory_recall", output: "Ann —likes→ tea" }],
    turnIds: ["t3"],
    timestamp: clock.now() + 1,
  });
  await memory.context.commit();
  await memory.upkeep.knowledge.create("recipes/tea", "# Tea\nSteep three minutes.\n");
  await memory.upkeep.knowledge.create("birds", "# Birds\nHerons wade.\n");
}

/** Every file of an export folder, the export time taken out (it is when, not what). */
async function files(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (at: string) => {
    for await (const e of Deno.readDir(join(dir, at))) {
      const path = at ? `${at}/${e.name}` : e.name;
      if (e.isDirectory) await walk(path);
      else {
        out.set(
          path,
          (await Deno.readTextFile(join(dir, path))).replace(/"exported_at":"[^"]+"/, "")
            .replace(/^Exported .*$/m, ""),
        );
      }
    }
  };
  await walk("");
  return out;
}

Deno.test("memory export DIR and import restore every tier exactly: a second export equals the first", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-portable-" });
  try {
    await using a = await openTestHome();
    await fill(a);
    const first = await exportMemoryDir(storesOf(a), join(dir, "a"));
    assert.deepEqual(
      [first.entities, first.facts, first.documents, first.context, first.knowledge],
      [10, 8, 2, 2, 2],
    );
    assert.equal(first.tombstones, 1);

    await using b = await openTestHome();
    const imported = await importMemory(storesOf(b), join(dir, "a"));
    assert.deepEqual([imported.documents, imported.facts, imported.context], [2, 8, 2]);
    await exportMemoryDir(storesOf(b), join(dir, "b"));
    const [was, is] = [await files(join(dir, "a")), await files(join(dir, "b"))];
    assert.deepEqual([...is.keys()].sort(), [...was.keys()].sort());
    for (const [path, text] of was) assert.equal(is.get(path), text, path);

    const again = await importMemory(storesOf(b), join(dir, "a", "memory.jsonl"));
    assert.deepEqual(
      [again.documents, again.facts, again.entities, again.context, again.knowledge],
      [0, 0, 0, 0, 0],
    );
    const refused = await b.memory.graph.graph.commit([
      { subject: "owner", predicate: "knows", object: "Mirelle" },
    ]);
    assert.equal(refused.forgotten, 1, "the tombstone came back with the import");
    await assert.rejects(exportMemoryDir(storesOf(b), join(dir, "b")), /not empty/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("memory export DIR writes Markdown a person can read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-portable-" });
  try {
    await using home = await openTestHome();
    await fill(home);
    await exportMemoryDir(storesOf(home), dir);
    const pages = await files(dir);
    const ann = [...pages.entries()].find(([p]) => /^entities\/Ann-/.test(p))![1];
    assert.match(ann, /^# Ann\n\n- type: person\n/);
    assert.match(ann, /- also called: Annie/);
    assert.match(ann, /- lives_in → \[Bergen\]\(Bergen-[0-9a-f]{8}\.md\) · since 2026-01-02/);
    assert.match(ann, /- lives_in → \[Oslo\]\(.*\) · 2026-01-01 – 2026-01-02 \(no longer true\)/);
    assert.match(ann, /likes → \[tea\]\(.*\) · since 2026-01-01\n {2}> Ann likes tea\./);
    assert.match(ann, /jazz.* · 2026-01-01 – 2026-01-02 \(no longer true\) · confidence 0\.60/);
    assert.match(ann, /~~Ann —knows→~~ \(deleted\)|~~knows → \[Bo\]/);
    const doc = [...pages.entries()].find(([p, t]) =>
      p.startsWith("documents/") && t.includes("cello")
    )!;
    const [, front, body] = doc[1].split(/^---$/m);
    assert.equal(parse(front!).access_count, 1);
    assert.deepEqual(parse(front!).turn_ids, ["t2"]);
    assert.equal(body!.trim(), "Ann plays the cello");
    assert.equal(pages.get("knowledge/recipes/tea/content.md"), "# Tea\nSteep three minutes.\n");
    assert.match(pages.get("context.md")!, /\(agent\): Tea\./);
    assert.match(pages.get("README.md")!, /1 forgotten names, kept only as keyed hashes/);
    assert.ok(
      ![...pages.values()].some((t) => t.includes("Mirelle")),
      "a forgotten name stays out",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

async function openStores(dir: string, clock: ManualClock) {
  const embedder = createHashEmbedder({ dim: 64, analyzer });
  const logger = new MemoryLogger();
  const documents = await DocStore.open({
    dir: join(dir, "docs"),
    embedder,
    analyzer,
    clock,
    logger,
  });
  const graph = GraphDB.open({ path: join(dir, "graph.db"), clock, embedder, logger });
  return {
    documents,
    graph,
    close() {
      documents.close();
      graph.close();
    },
  };
}

const V1 = [
  { type: "homeagent-memory", version: 1 },
  {
    type: "document",
    summary: "",
    content: "我家的猫叫咪咪",
    source: "cli",
    created_at: 1,
    turn_ids: ["t1"],
  },
  {
    type: "fact",
    subject: "Ann",
    predicate: "lives_in",
    object: "Oslo",
    valid_from: Date.UTC(2025, 0, 1),
  },
  {
    type: "fact",
    subject: "Ann",
    predicate: "lives_in",
    object: "Bergen",
    valid_from: Date.UTC(2025, 6, 1),
  },
];

Deno.test("memory import still reads a version 1 export: a later functional value closes the earlier", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-portable-" });
  try {
    const file = join(dir, "v1.jsonl");
    await Deno.writeTextFile(file, V1.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const target = await openStores(join(dir, "b"), new ManualClock());
    try {
      assert.deepEqual(await importMemory(target, file), {
        documents: 1,
        facts: 2,
        skipped: { documents: 0, facts: 0 },
      });
      const lives = (await target.graph.history("Ann")).filter((r) => r.type === "lives_in");
      assert.equal(lives.find((r) => r.validTo === undefined)?.target, "Bergen");
      assert.deepEqual(
        await importMemory(target, file),
        { documents: 0, facts: 0, skipped: { documents: 1, facts: 2 } },
        "a second import changes nothing",
      );
      assert.deepEqual((await target.documents.query("咪咪", { k: 1 }))[0]?.document.turnIds, [
        "t1",
      ]);
    } finally {
      target.close();
    }
    const bad = join(dir, "bad.jsonl");
    await Deno.writeTextFile(
      bad,
      '{"type":"homeagent-memory","version":2}\n{"type":"fact","subject":""}\n',
    );
    const empty = await openStores(join(dir, "c"), new ManualClock());
    try {
      await assert.rejects(importMemory(empty, bad), /bad\.jsonl:2: /);
      assert.equal(empty.documents.size(), 0);
    } finally {
      empty.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("memory import is all or nothing: when the facts cannot be written, the documents are taken back", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-portable-" });
  try {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const source = await openStores(join(dir, "a"), clock);
    await source.documents.insert({ content: "Ann plays the cello", source: "cli" });
    await source.graph.commit([{ subject: "Ann", predicate: "plays", object: "cello" }]);
    const file = join(dir, "export.jsonl");
    await exportMemory(source, file);
    source.close();
    for (const version of [1, 2]) {
      if (version === 1) {
        await Deno.writeTextFile(
          file,
          V1.map((l) => JSON.stringify(l)).join("\n"),
        );
      }
      const stores = await openStores(join(dir, `t${version}`), clock);
      try {
        stores.graph.close(); // the graph cannot be written
        await assert.rejects(importMemory(stores, file));
        assert.equal(stores.documents.size(), 0, `version ${version}`);
      } finally {
        stores.documents.close();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
