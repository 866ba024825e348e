/**
 * Recall's read caches over graph.db (issue 14, `recall_p95_ms_100k`): a recall through them
 * returns exactly what the uncached reads return, and any change to the database — by this
 * GraphDB's writes or another connection's — is seen by the next recall.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  formatFact,
  type GraphQuery,
  type GraphRecall,
  type GraphStore,
} from "../../../core/mod.ts";
import { createTextAnalyzer, GraphDB, GraphIndexer } from "../../../memory/mod.ts";
import { GraphSql } from "../../../memory/graph/_rows.ts";
import { around, keywordSeeds, walk } from "../../../memory/graph/_recall.ts";
import { RecallCache } from "../../../memory/graph/_recall_cache.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { rng } from "../../fakes/random.ts";

const T0 = Date.UTC(2026, 0, 1);

async function withDir(fn: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-recall-cache-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a recall through the caches, cold or warm, equals the uncached reads", async () => {
  await withDir((dir) => {
    const path = join(dir, "graph.db");
    const random = rng(9);
    const graph = GraphDB.open({ path, clock: { now: () => T0 } });
    const ids = graph.bulkEntities(
      Array.from({ length: 1500 }, (_, i) => ({
        name: `${["ann", "bo", "cy", "dee"][i % 4]}${i}`,
        type: "person",
        mentions: 1 + (i % 5), // ties on mentions: the entities' order must hold them as before
      })),
    );
    const pick = () => ids[Math.floor(random() * ids.length)]!;
    graph.bulkRelations(
      Array.from({ length: 9000 }, (_, i) => ({
        source: pick(),
        target: pick(),
        type: ["knows", "likes"][i % 2]!,
        validFrom: T0,
      })),
    );
    graph.close();
    const db = new DatabaseSync(path);
    try {
      db.exec("update relations set valid_to = 2 where id % 7 = 0");
      db.exec("update relations set status = 'deleted' where id % 11 = 0");
      db.exec("update relations set confidence = 0.5 where id % 3 = 0");
      const g = new GraphSql(db, () => T0);
      const caches = new RecallCache(g);
      const recall = (keywords: string[], limit: number, cache?: RecallCache): GraphRecall => {
        const seeds = keywordSeeds(g, keywords, { cache });
        const reached = walk(g, seeds, { depth: 2, limit, cache });
        return around(g, reached, limit, { seeds, cache });
      };
      for (let round = 0; round < 40; round++) {
        const keywords = Array.from(
          { length: 1 + (round % 4) },
          () => `cy${4 * Math.floor(random() * 375) + 2}`,
        );
        if (round % 3 === 0) keywords.push("ann1"); // a prefix of many names
        const limit = [12, 50][round % 2]!;
        const want = recall(keywords, limit);
        assert.ok(want.relations.length > 0, `round ${round} finds facts`);
        assert.deepEqual(recall(keywords, limit, caches.fresh()), want, `round ${round}, cold`);
        assert.deepEqual(recall(keywords, limit, caches.fresh()), want, `round ${round}, warm`);
      }
    } finally {
      db.close();
    }
  });
});

Deno.test("each write between two recalls is seen by the next one", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "graph.db");
    const graph = GraphDB.open({ path, clock: { now: () => T0 } });
    const other = GraphDB.open({ path, clock: { now: () => T0 } });
    try {
      await graph.commit([{ subject: "Ann", predicate: "likes", object: "tea" }]);
      const facts = async (keyword = "Ann") => {
        const found = await graph.recall({ keywords: [keyword] });
        assert.deepEqual(await graph.recall({ keywords: [keyword] }), found, "twice the same");
        return found.relations.map((r) => `${r.source} ${r.type} ${r.target}`).sort();
      };
      assert.deepEqual(await facts(), ["Ann likes tea"]);
      await graph.commit([{ subject: "Bo", predicate: "knows", object: "Ann" }]);
      assert.deepEqual(await facts(), ["Ann likes tea", "Bo knows Ann"], "a new fact");
      const tea = (await graph.recall({ keywords: ["tea"] })).relations[0]!;
      await graph.editRelation(tea.id, { close: true });
      assert.deepEqual(await facts(), ["Bo knows Ann"], "a closed fact");
      await graph.editEntity("Ann", { name: "Annabel" });
      assert.deepEqual(await facts("Annabel"), ["Bo knows Annabel"], "a renamed entity");
      await other.commit([{ subject: "Annabel", predicate: "lives_in", object: "Oslo" }]);
      assert.deepEqual(
        await facts("Annabel"),
        ["Annabel lives_in Oslo", "Bo knows Annabel"],
        "a fact another connection committed",
      );
      await graph.deleteEntity("Bo");
      assert.deepEqual(await facts("Annabel"), ["Annabel lives_in Oslo"], "a retired entity");
      await graph.purge("Oslo");
      assert.deepEqual(await facts("Annabel"), [], "a purged entity");
      assert.deepEqual(await facts("Oslo"), []);
    } finally {
      other.close();
      graph.close();
    }
  });
});

Deno.test("inside a transaction the caches are neither read nor filled", () => {
  const db = new DatabaseSync(":memory:");
  try {
    const g = new GraphSql(db, () => T0);
    const caches = new RecallCache(g);
    db.exec("create table t (a)");
    assert.ok(caches.fresh());
    db.exec("begin");
    db.exec("insert into t values (1)");
    assert.equal(caches.fresh(), undefined, "the transaction may roll back");
    db.exec("rollback");
    assert.ok(caches.fresh());
  } finally {
    db.close();
  }
});

Deno.test("the [Memory Index] reads only the facts it can show, and shows the same", async () => {
  const graph = GraphDB.open({ path: ":memory:", clock: { now: () => T0 } });
  try {
    await graph.commit(
      Array.from(
        { length: 40 },
        (_, i) => ({ subject: "Ann", predicate: "likes", object: `t${i}` }),
      ),
    );
    const limits: (number | undefined)[] = [];
    const spied: GraphStore = Object.create(graph, {
      recall: {
        value: (query: GraphQuery) => (limits.push(query.limit), graph.recall(query)),
      },
    });
    const indexer = new GraphIndexer({
      graph: spied,
      analyzer: await createTextAnalyzer(),
      clock: new ManualClock(T0),
    });
    const top = (await graph.recall({ keywords: ["ann"], limit: 50 })).relations;
    const shown = (ids: ReadonlySet<number>) =>
      top.filter((r) => !ids.has(r.id)).slice(0, 12).map((r) => `- ${formatFact(r)}`);
    const section = async () => (await indexer.section("Ann"))!.lines.slice(0, -1);
    assert.deepEqual(await section(), shown(new Set()));
    const marked = new Set([top[0]!.id, top[3]!.id, top[20]!.id]);
    indexer.markRecalled(marked);
    assert.deepEqual(await section(), shown(marked), "the marked facts left out, 12 still shown");
    assert.deepEqual(limits, [12, 15]);
  } finally {
    graph.close();
  }
});
