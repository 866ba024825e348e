import assert from "node:assert/strict";
import { join } from "node:path";
import {
  createHashEmbedder,
  createTextAnalyzer,
  DocStore,
  exportMemory,
  GraphDB,
  importMemory,
} from "../../memory/mod.ts";
import { ManualClock } from "../fakes/clock.ts";
import { MemoryLogger } from "../fakes/logger.ts";

const analyzer = await createTextAnalyzer();

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

Deno.test("memory export and import round-trip documents and facts, validity included", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-portable-" });
  try {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const source = await openStores(join(dir, "a"), clock);
    await source.documents.insert({ content: "我家的猫叫咪咪", source: "cli", turnIds: ["t1"] });
    await source.documents.insert({ content: "The car needs winter tyres", source: "cli" });
    await source.graph.commit([
      {
        subject: "Ann",
        predicate: "lives_in",
        object: "Oslo",
        validFrom: Date.UTC(2025, 0, 1),
        turnIds: ["t2"],
      },
      { subject: "Ann", predicate: "likes", object: "tea", sentence: "Ann likes tea" },
    ]);
    await source.graph.commit([
      { subject: "Ann", predicate: "lives_in", object: "Bergen", validFrom: Date.UTC(2025, 6, 1) },
    ]);
    const file = join(dir, "export.jsonl");
    assert.deepEqual(await exportMemory(source, file), { documents: 2, facts: 3 });
    source.close();

    const lines = (await Deno.readTextFile(file)).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines[0].type, "homeagent-memory");
    assert.equal(lines.filter((l) => l.type === "fact").length, 3);

    const target = await openStores(join(dir, "b"), clock);
    try {
      assert.deepEqual(await importMemory(target, file), {
        documents: 2,
        facts: 3,
        skipped: { documents: 0, facts: 0 },
      });
      const hits = await target.documents.query("咪咪", { k: 1 });
      assert.deepEqual(hits[0]?.document.turnIds, ["t1"]);
      const history = await target.graph.history("Ann");
      const lives = history.filter((r) => r.type === "lives_in");
      assert.equal(lives.length, 2);
      assert.equal(lives.filter((r) => r.validTo === undefined).length, 1, "one open residence");
      assert.equal(lives.find((r) => r.validTo === undefined)?.target, "Bergen");
      assert.deepEqual(
        await importMemory(target, file),
        { documents: 0, facts: 0, skipped: { documents: 2, facts: 3 } },
        "a second import changes nothing",
      );
      const after = (await target.graph.history("Ann")).filter((r) => r.type === "lives_in");
      assert.equal(after.length, 2, "no second copy of the closed residence");
    } finally {
      target.close();
    }

    const bad = join(dir, "bad.jsonl");
    await Deno.writeTextFile(
      bad,
      '{"type":"homeagent-memory","version":1}\n{"type":"fact","subject":""}\n',
    );
    const empty = await openStores(join(dir, "c"), clock);
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
    const file = join(dir, "export.jsonl");
    await Deno.writeTextFile(
      file,
      [
        { type: "homeagent-memory", version: 1 },
        {
          type: "document",
          summary: "",
          content: "Ann plays the cello",
          source: "cli",
          created_at: 1,
        },
        { type: "fact", subject: "Ann", predicate: "plays", object: "cello", valid_from: 1 },
      ].map((l) => JSON.stringify(l)).join("\n"),
    );
    const stores = await openStores(join(dir, "a"), clock);
    try {
      stores.graph.close(); // the graph cannot be written
      await assert.rejects(importMemory(stores, file));
      assert.equal(stores.documents.size(), 0);
      assert.deepEqual(await stores.documents.query("cello", { k: 1 }), []);
    } finally {
      stores.documents.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
