import assert from "node:assert/strict";
import { silentLogger } from "../../core/mod.ts";
import {
  createHashEmbedder,
  createTextAnalyzer,
  DocStore,
  ensureHome,
  GraphDB,
} from "../../memory/mod.ts";
import { runMain } from "../fakes/daemon.ts";

const clock = {
  now: () => Date.UTC(2026, 0, 1),
  monotonic: () => 0,
  setTimer: () => ({ cancel() {} }),
};

Deno.test("CLI memory stats and memory recall read a home's graph and documents as JSON", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-memory-cli-" });
  try {
    const paths = await ensureHome(home);
    const graph = GraphDB.open({ path: paths.graphDb, clock, embedder: createHashEmbedder() });
    await graph.commit([
      {
        subject: "Ann",
        subjectType: "person",
        predicate: "lives_in",
        object: "Oslo",
        turnIds: ["t1"],
      },
      { subject: "Ann", predicate: "likes", object: "jazz", sentence: "Ann likes jazz" },
      { subject: "小明", predicate: "居住地", object: "北京" },
    ]);
    graph.close();
    const docs = await DocStore.open({
      dir: paths.docs,
      embedder: createHashEmbedder(),
      analyzer: await createTextAnalyzer(),
      clock,
      logger: silentLogger,
    });
    await docs.insert({
      content: "Ann played jazz piano at the Oslo concert",
      source: "cli",
      turnIds: ["t9"],
    });
    docs.close();

    const stats = await runMain(["memory", "stats", "--home", home]);
    assert.equal(stats.code, 0, stats.stderr);
    const report = JSON.parse(stats.stdout);
    assert.deepEqual(report.graph, {
      entities: 5,
      relations: 3,
      closed: 0,
      deleted: 0,
      sentences: 1,
    });
    assert.equal(report.documents, 1);
    assert.equal(report.contextEvents, null);
    assert.match(report.vectorSpace, /^hash-ngram:v1:\d+$/);

    const recall = await runMain([
      "memory",
      "recall",
      "--home",
      home,
      "Where",
      "does",
      "Ann",
      "live?",
    ]);
    assert.equal(recall.code, 0, recall.stderr);
    const found = JSON.parse(recall.stdout);
    assert.equal(found.query, "Where does Ann live?");
    assert.deepEqual(found.sections.map((s: { title: string }) => s.title), [
      "Memory Index",
      "Related Memory Docs",
    ]);
    assert.ok(found.sections[0].lines.includes("- Ann —lives_in→ Oslo (2026-01-01)"));
    assert.deepEqual(
      found.graph.relations.find((r: { target: string }) => r.target === "Oslo").turnIds,
      ["t1"],
    );
    assert.deepEqual(found.documents[0].turnIds, ["t9"]);

    const zh = JSON.parse(
      (await runMain(["memory", "recall", "--home", home, "小明住在哪里"])).stdout,
    );
    assert.deepEqual(zh.sections[0].lines[0], "- 小明 —居住地→ 北京 (2026-01-01)");

    const usage = await runMain(["memory", "recall", "--home", home]);
    assert.equal(usage.code, 2);
    assert.match(
      usage.stderr,
      /Usage: .*homeagent memory stats \| recall QUERY \| export DIR\|FILE\.jsonl/,
    );
    assert.equal((await runMain(["memory", "frobnicate", "--home", home])).code, 2);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
