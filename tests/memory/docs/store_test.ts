import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  type ContextEvent,
  documentsSection,
  documentTools,
  type Embedder,
  eventsToDocuments,
} from "../../../core/mod.ts";
import { createHashEmbedder } from "../../../memory/embed/hash.ts";
import { createTextAnalyzer } from "../../../memory/text/keywords.ts";
import { DocStore } from "../../../memory/docs/store.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

const DAY = 86_400_000;
const analyzer = await createTextAnalyzer();

async function withStore(
  fn: (
    ctx: { store: DocStore; dir: string; clock: ManualClock; logger: MemoryLogger },
  ) => Promise<void>,
  dim = 256,
) {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-docs-" });
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const logger = new MemoryLogger();
  const store = await DocStore.open({
    dir,
    embedder: createHashEmbedder({ dim }),
    analyzer,
    clock,
    logger,
  });
  try {
    await fn({ store, dir, clock, logger });
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const NOTES = [
  "我家的猫叫咪咪，最喜欢吃金枪鱼",
  "明天北京会下大雨，记得带伞",
  "My sister Ann moved to Oslo last spring and works as a nurse",
  "The car needs new winter tyres before December",
  "周末和朋友去爬香山，看红叶",
];

Deno.test("DocStore finds Chinese and English documents by meaning and by keyword", async () => {
  await withStore(async ({ store }) => {
    for (const content of NOTES) await store.insert({ content, source: "cli" });
    assert.equal(store.size(), 5);
    const zh = await store.query("猫喜欢吃什么", { k: 2 });
    assert.equal(zh[0]?.document.content, NOTES[0]);
    const en = await store.query("where does my sister Ann live", { k: 2 });
    assert.equal(en[0]?.document.content, NOTES[2]);
    assert.equal(en[0]?.keyword, true);
    const tyres = await store.query("winter tyres", { k: 1 });
    assert.equal(tyres[0]?.document.content, NOTES[3]);
    assert.deepEqual(await store.query("", { k: 3 }), []);
  });
});

Deno.test("DocStore stores identical content once", async () => {
  await withStore(async ({ store, dir }) => {
    const a = await store.insert({ content: "same  text\n", source: "cli" });
    const b = await store.insert({ content: "same text", source: "web" });
    assert.equal(b.duplicate, true);
    assert.equal(b.id, a.id);
    assert.equal(store.size(), 1);
    const files = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".json"));
    assert.equal(files.length, 1);
  });
});

Deno.test("DocStore consume reads and deletes, oldest first", async () => {
  await withStore(async ({ store, dir }) => {
    const late = await store.insert({
      content: "late note about tea",
      source: "cli",
      createdAt: 2000,
    });
    const early = await store.insert({
      content: "early note about tea",
      source: "cli",
      createdAt: 1000,
    });
    const taken = await store.consume([late.id, early.id, "missing"]);
    assert.deepEqual(taken.map((d) => d.id), [early.id, late.id]);
    assert.equal(store.size(), 0);
    assert.deepEqual(await store.query("tea"), []);
    assert.equal([...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".json")).length, 0);
  });
});

Deno.test("DocStore findCold lists documents idle 72 h with at most 2 accesses", async () => {
  await withStore(async ({ store, clock }) => {
    const now = clock.now();
    const old = await store.insert({
      content: "old unused fact",
      source: "cli",
      createdAt: now - 4 * DAY,
    });
    await store.insert({ content: "fresh fact", source: "cli", createdAt: now - DAY });
    const popular = await store.insert({
      content: "popular old fact about fish",
      source: "cli",
      createdAt: now - 5 * DAY,
    });
    for (let i = 0; i < 3; i++) {
      await store.query("popular old fact about fish", { k: 1, touch: true });
    }
    const cold = await store.findCold({ now: clock.now(), idleMs: 3 * DAY, maxAccess: 2 });
    assert.deepEqual(cold.map((d) => d.id), [old.id], "fresh and popular ones stay");
    clock.advance(4 * DAY);
    const later = await store.findCold({ now: clock.now(), idleMs: 3 * DAY, maxAccess: 2 });
    assert.equal(later.length, 2, "the fresh one has gone cold too, the popular one never");
    assert.ok(!later.some((d) => d.id === popular.id));
  });
});

Deno.test("DocStore rebuilds its index from the files and re-embeds a changed space", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-docs-" });
  try {
    const clock = new ManualClock();
    const logger = new MemoryLogger();
    const first = await DocStore.open({
      dir,
      embedder: createHashEmbedder({ dim: 128 }),
      analyzer,
      clock,
      logger,
    });
    for (const content of NOTES) await first.insert({ content, source: "cli" });
    first.close();
    await Deno.remove(join(dir, "index.db"));
    await Deno.remove(join(dir, "index.db-wal")).catch(() => {});
    await Deno.remove(join(dir, "index.db-shm")).catch(() => {});

    const embedder = createHashEmbedder({ dim: 256 });
    const second = await DocStore.open({ dir, embedder, analyzer, clock, logger });
    try {
      assert.equal(second.size(), 5);
      assert.ok(
        logger.find("Documents with vectors from another space; run a re-embed").length > 0,
      );
      assert.equal(await second.reembedStale({ batch: 2 }), 5);
      assert.equal(await second.reembedStale(), 0);
      const hit = await second.query("猫喜欢吃什么", { k: 1 });
      assert.equal(hit[0]?.document.content, NOTES[0]);
      assert.ok(hit[0]?.dense !== undefined && hit[0].dense > 0);
      const file = JSON.parse(await Deno.readTextFile(join(dir, `${hit[0]!.document.id}.json`)));
      assert.equal(file.vector.fingerprint, embedder.fingerprint);
    } finally {
      second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doc_query consumes documents and puts them back into the context at their time", async () => {
  await withStore(async ({ store }) => {
    const events: ContextEvent[] = [
      {
        id: "u1",
        role: "user",
        source: "cli",
        channel: "cli",
        input: "我家的猫叫咪咪",
        turnIds: ["t1"],
        timestamp: 1000,
      },
      {
        id: "a1",
        role: "agent",
        source: "cli",
        channel: "cli",
        response: "好的，记住了",
        turnIds: ["t1"],
        timestamp: 1001,
      },
      {
        id: "u2",
        role: "user",
        source: "cli",
        channel: "cli",
        input: "the car needs tyres",
        turnIds: ["t2"],
        timestamp: 2000,
      },
    ];
    const docs = eventsToDocuments(events);
    assert.equal(docs.length, 2);
    assert.deepEqual(docs[0]!.turnIds, ["t1"]);
    assert.equal(docs[0]!.createdAt, 1000);
    for (const doc of docs) await store.insert(doc);

    const hits = await store.query("咪咪是谁", { k: 3, touch: true });
    const section = documentsSection(hits.map((h) => h.document));
    assert.equal(section?.title, "Related Memory Docs");
    assert.match(section!.lines[0]!, /咪咪/);

    const inserted: ContextEvent[] = [];
    const [query] = documentTools(store, { insert: (e) => void inserted.push(e) });
    const out = await query!.handler({ query: "猫 咪咪" }, {
      signal: new AbortController().signal,
      turnId: "t9",
      callId: "c1",
    });
    assert.match(String(out), /咪咪/);
    assert.equal(inserted[0]?.role, "cold_storage");
    assert.equal(inserted[0]?.timestamp, 1000);
    assert.deepEqual(inserted[0]?.turnIds, ["t1"]);
    assert.equal(store.size(), 2 - inserted.length);
  });
});

Deno.test("doc_query deletes documents only once the context window holds them durably", async () => {
  await withStore(async ({ store }) => {
    await store.insert({ content: "我家的猫叫咪咪", source: "cli", createdAt: 1000 });
    await store.insert({ content: "the car needs tyres", source: "cli", createdAt: 2000 });
    const seen: string[] = [];
    const [query] = documentTools(store, {
      insert: () => void seen.push(`insert with ${store.size()} documents`),
      commit: () => {
        seen.push(`commit with ${store.size()} documents`);
        return Promise.resolve();
      },
    });
    await query!.handler({ query: "猫 咪咪" }, {
      signal: new AbortController().signal,
      turnId: "t9",
      callId: "c1",
    });
    assert.deepEqual(seen, ["insert with 2 documents", "commit with 2 documents"]);
    assert.equal(store.size(), 1, "then the document is gone");
  });
});

Deno.test("an index from before textForScoring re-embeds and re-indexes its stamped exchanges once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-docs-" });
  const stamped = "[2026-11-30 18:00] you: 我家的猫叫咪咪\n[2026-11-30 18:01] agent: 记住了";
  const open = (embedder: Embedder) =>
    DocStore.open({
      dir,
      embedder,
      analyzer,
      clock: new ManualClock(),
      logger: new MemoryLogger(),
    });
  try {
    const first = await open(createHashEmbedder({ dim: 128 }));
    const { id } = await first.insert({ content: stamped, source: "cli" });
    await first.insert({ content: NOTES[1]!, source: "cli" });
    first.close();
    // As the code before left it: schema version 2, the words taken with the stamps.
    const db = new DatabaseSync(join(dir, "index.db"));
    db.exec("alter table docs drop column content_terms; pragma user_version = 2");
    db.prepare("update docs set terms = 'zzstamp ' || terms where id = ?").run(id);
    db.close();

    const texts: string[] = [];
    const hash = createHashEmbedder({ dim: 128 });
    const embedder: Embedder = {
      ...hash,
      embed: (batch, options) => (texts.push(...batch), hash.embed(batch, options)),
    };
    const second = await open(embedder);
    try {
      assert.equal(second.staleVectors(), 1, "only the stamped exchange is stale");
      assert.equal(await second.reembedStale(), 1);
      assert.deepEqual(texts, ["我家的猫叫咪咪\n记住了"]);
      assert.equal(second.staleVectors(), 0);
      assert.equal((await second.query("咪咪", { k: 1 }))[0]?.document.id, id);
    } finally {
      second.close();
    }
    const after = new DatabaseSync(join(dir, "index.db"));
    const row = after.prepare("select terms from docs where id = ?").get(id);
    after.close();
    assert.ok(!String(row?.terms).includes("zzstamp"), "its words were analyzed again");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("DocStore scores a rewritten or removed document by what it holds now, not a cached vector", async () => {
  await withStore(async ({ store }) => {
    const ids: string[] = [];
    for (const content of NOTES) ids.push((await store.insert({ content, source: "cli" })).id);
    const embedder = createHashEmbedder({ dim: 256 });
    const [old, next] = await embedder.embed([NOTES[2]!, "Grandpa keeps bees on the roof"]);
    const before = await store.query("Ann", { k: 5, minDense: 0, vector: old });
    assert.ok(Math.abs(before.find((h) => h.document.id === ids[2])!.dense! - 1) < 1e-6);
    const doc = (await store.get(ids[2]!))!;
    await store.rewrite(ids[2]!, { ...doc, content: "Grandpa keeps bees on the roof" });
    const after = await store.query("Ann", { k: 5, minDense: 0, vector: next });
    assert.ok(Math.abs(after.find((h) => h.document.id === ids[2])!.dense! - 1) < 1e-6);
    await store.remove(ids[2]!);
    const gone = await store.query("bees", { k: 5, minDense: 0, vector: next });
    assert.equal(gone.some((h) => h.document.id === ids[2]), false);
  });
});
