/**
 * A query's hits come from the index's rows (issue 14: one select, no file per hit), and an
 * index from before bodies were kept gets them from the files when the store opens.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { createHashEmbedder } from "../../../memory/embed/hash.ts";
import { createTextAnalyzer } from "../../../memory/text/keywords.ts";
import { DocStore } from "../../../memory/docs/store.ts";
import { dot } from "../../../memory/docs/vectors.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

const analyzer = await createTextAnalyzer();
const embedder = createHashEmbedder({ dim: 256 });

const NOTES = [
  { content: "我家的猫叫咪咪，最喜欢吃金枪鱼", tags: ["猫"], entities: ["咪咪"] },
  { content: "My sister Ann moved to Oslo last spring", tags: ["family"], entities: ["Ann"] },
  { content: "The car needs new winter tyres before December", tags: [], entities: [] },
];

async function open(dir: string, logger = new MemoryLogger()) {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  return await DocStore.open({ dir, embedder, analyzer, clock, logger });
}

/** Every document file in `dir` overwritten with bytes that do not parse. */
async function breakFiles(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(".json")) await Deno.writeTextFile(join(dir, entry.name), "{oops");
  }
}

Deno.test("DocStore.query takes its hits from the index rows, reading no document file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-docs-" });
  try {
    const store = await open(dir);
    const ids = await store.insertMany(NOTES.map((n) => ({ ...n, source: "cli" })));
    const stored = await store.get(ids[1]!.id);
    await breakFiles(dir); // a query that read a file would skip its hit (and log it)
    const [hit] = await store.query("where does my sister Ann live", { k: 1 });
    assert.deepEqual(hit?.document, stored, "the whole document, as its file held it");
    const [cat] = await store.query("猫喜欢吃什么", { k: 1 });
    assert.deepEqual(cat?.document.entities, ["咪咪"]);
    store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("DocStore fills the bodies of an index from before bodies were kept, from the files", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-docs-" });
  try {
    const first = await open(dir);
    const ids = await first.insertMany(NOTES.map((n) => ({ ...n, source: "cli" })));
    const stored = await first.get(ids[2]!.id);
    first.close();
    const db = new DatabaseSync(join(dir, "index.db"));
    db.exec("update docs set content = null, tags = null, entities = null");
    db.close();
    const logger = new MemoryLogger();
    const second = await open(dir, logger);
    assert.ok(logger.lines.some((l) => /bodies/.test(l.msg)), "the copy is logged");
    await breakFiles(dir);
    const [hit] = await second.query("winter tyres", { k: 1 });
    assert.deepEqual(hit?.document, stored);
    second.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("DocStore holds no vectors until its first query, then finds old and new documents", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-docs-" });
  try {
    const first = await open(dir);
    await first.insertMany(NOTES.map((n) => ({ ...n, source: "cli" })));
    first.close();
    const store = await open(dir);
    try {
      assert.equal(store.vectorBytes(), 0, "an idle store must not load the int8 matrix");
      await store.insert({ content: "周末和朋友去爬香山，看红叶", source: "cli" });
      assert.equal(store.vectorBytes(), 0);
      const cat = await store.query("猫喜欢吃什么", { k: 1 });
      assert.equal(cat[0]?.document.content, NOTES[0]!.content);
      assert.ok(store.vectorBytes() > 0);
      const hill = await store.query("爬山看红叶", { k: 1 });
      assert.equal(hill[0]?.document.content, "周末和朋友去爬香山，看红叶");
      assert.ok(
        (hill[0]?.dense ?? 0) > 0.25,
        "the document written before the load has its vector",
      );
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("DocStore re-scores and reads its hits by rowid, and by id a row renumbered under it (a vacuum)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-docs-" });
  try {
    const store = await open(dir);
    const ids = await store.insertMany(NOTES.map((n) => ({ ...n, source: "cli" })));
    const [vector] = await embedder.embed(["我家的猫喜欢吃什么"]);
    const dense = async () =>
      new Map(
        (await store.query("我家的猫喜欢吃什么", { k: 3, minDense: 0, vector }))
          .map((h) => [h.document.id, h.dense]),
      );
    const before = await dense(); // loads the index with each row's rowid
    // Another connection swaps the first two documents' rowids, as a vacuum may renumber rows:
    // the index's keys now point at each other's rows.
    const db = new DatabaseSync(join(dir, "index.db"));
    const [a, b] = ids.slice(0, 2).map((d) =>
      Number(db.prepare("select rowid from docs where id = ?").get(d.id)!.rowid)
    );
    db.exec(`update docs set rowid = -1 where rowid = ${a}; update docs set rowid = ${a}
      where rowid = ${b}; update docs set rowid = ${b} where rowid = -1`);
    db.close();
    const after = await dense();
    assert.equal(after.size, 3);
    for (const [id, score] of after) {
      const [own] = await embedder.embed([(await store.get(id))!.content]);
      assert.ok(Math.abs(score! - dot(own!, vector!)) < 1e-6, `${id}: its own vector's score`);
      assert.equal(score, before.get(id));
    }
    // The hits' rows are read by rowid too: each is its own document, not the one swapped in.
    for (const hit of await store.query("我家的猫喜欢吃什么", { k: 3, minDense: 0, vector })) {
      assert.deepEqual(hit.document, await store.get(hit.document.id));
    }
    store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
