/** Each tier's part of forgetting: graph, text log, documents, context window. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { eventsToDocuments, RelevanceContext } from "../../../core/mod.ts";
import {
  createHashEmbedder,
  createTextAnalyzer,
  DocStore,
  GraphDB,
  JsonContextStore,
  sweepDocuments,
} from "../../../memory/mod.ts";
import { TextLog, type TextTurn } from "../../../memory/log/text_log.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { cliEvent } from "../../fakes/context.ts";

const analyzer = await createTextAnalyzer();

async function inTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-forget-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function fileHolds(path: string, text: string): Promise<boolean> {
  const bytes = await Deno.readFile(path);
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes).toLowerCase()
    .includes(text.toLowerCase());
}

Deno.test("GraphDB.forget erases the entity, its aliases and names in other entities, redacts sentences, refuses later commits, and survives a reopen", async () => {
  await inTemp(async (dir) => {
    const path = join(dir, "graph.db");
    const clock = new ManualClock();
    let graph = GraphDB.open({ path, clock });
    await graph.commit([
      { subject: "owner", predicate: "friend_of", object: "Bo" },
      { subject: "Bobby", predicate: "likes", object: "jazz" },
      { subject: "owner", predicate: "likes", object: "Bo's bakery" },
      {
        subject: "owner",
        predicate: "visited",
        object: "Oslo",
        sentence: "I went to Oslo with Bobby in May.",
      },
      { subject: "Ann", predicate: "likes", object: "tea", sentence: "Ann likes tea, Bo said." },
    ]);
    await graph.merge("Bo", "Bobby");
    const result = await graph.forget("bobby");
    assert.deepEqual(
      [result.names, result.entities, result.relations, result.sentences],
      [2, 2, 3, 2],
    );
    assert.equal(await graph.entity("Bo"), undefined);
    assert.equal(await graph.entity("Bo's bakery"), undefined);
    const owner = await graph.history("owner");
    assert.deepEqual(owner.map((r) => `${r.type} ${r.target} | ${r.sentence}`), [
      "visited Oslo | I went to Oslo with [forgotten] in May.",
    ]);
    assert.equal((await graph.history("Ann"))[0]!.sentence, "Ann likes tea, [forgotten] said.");
    const refused = await graph.commit([
      { subject: "owner", predicate: "knows", object: "BO" },
      { subject: "owner", predicate: "likes", object: "walks", sentence: "Walks with Bobby" },
    ]);
    assert.equal(refused.forgotten, 1);
    assert.equal(
      (await graph.history("owner")).find((r) => r.target === "walks")?.sentence,
      "Walks with [forgotten]",
    );
    graph.close();
    for (const file of ["graph.db", "graph.db-wal"]) {
      const at = join(dir, file);
      if (await Deno.stat(at).catch(() => undefined)) {
        assert.equal(await fileHolds(at, "bobby"), false, `${file} holds no trace`);
      }
    }
    graph = GraphDB.open({ path, clock });
    try {
      assert.equal(graph.forgotten.size, 2, "the tombstones are stored");
      const again = await graph.commit([{ subject: "Bobby", predicate: "likes", object: "tea" }]);
      assert.equal(again.forgotten, 1);
      assert.equal(await graph.entity("Bobby"), undefined);
    } finally {
      graph.close();
    }
  });
});

function turn(id: string, input: string): TextTurn {
  return { turnId: id, source: "web", channel: "web", input, reply: "ok", inputAt: 0, replyAt: 0 };
}

Deno.test("TextLog.redact rewrites line for line; a reader goes on from its watermark, old ones too", async () => {
  await inTemp(async (dir) => {
    const graph = GraphDB.open({ path: ":memory:", clock: new ManualClock() });
    const log = await TextLog.open({ dir, clock: new ManualClock(), redactor: graph.forgotten });
    try {
      await log.append(turn("t1", "Mirelle Okafor moved to Lyon"));
      await log.append(turn("t2", "hello"));
      const first = await log.readSince();
      const legacy = { file: first.watermark!.file, offset: first.watermark!.offset };
      await graph.forget("Mirelle Okafor");
      assert.deepEqual(await log.redact(graph.forgotten), { files: 1, lines: 1 });
      await log.append(turn("t3", "I saw mirelle okafor again"));
      const next = await log.readSince(first.watermark);
      assert.deepEqual(next.turns.map((t) => [t.turnId, t.input]), [
        ["t3", "I saw [forgotten] again"],
      ]);
      assert.deepEqual((await log.readSince(legacy)).turns.map((t) => t.turnId), ["t3"]);
      const all = (await log.readSince()).turns.map((t) => t.input);
      assert.deepEqual(all, ["[forgotten] moved to Lyon", "hello", "I saw [forgotten] again"]);
    } finally {
      await log.close();
      graph.close();
    }
  });
});

Deno.test("Documents: a sweep rewrites those that mention a forgotten name, new ones are redacted as stored", async () => {
  await inTemp(async (dir) => {
    const clock = new ManualClock();
    const graph = GraphDB.open({ path: ":memory:", clock });
    const docs = await DocStore.open({
      dir,
      embedder: createHashEmbedder({ dim: 64 }),
      analyzer,
      clock,
      logger: new MemoryLogger(),
      redactor: graph.forgotten,
    });
    try {
      await docs.insert({ content: "Dinner with 张小凤 on Friday", source: "web" });
      await docs.insert({ content: "Dinner with [forgotten] on Friday", source: "web" });
      await docs.insert({ content: "Buy tea", source: "web", entities: ["张小凤"] });
      await graph.forget("张小凤");
      const swept = await sweepDocuments(docs, graph.forgotten, clock.now());
      assert.deepEqual(swept, { redacted: 1, removed: 1 }, "one became a duplicate");
      const { id } = await docs.insert({ content: "张小凤来了", source: "web" });
      const texts = [];
      for await (const d of docs.all()) texts.push([d.content, d.summary, d.entities.join()]);
      assert.deepEqual(texts.sort(), [
        ["Buy tea", "Buy tea", ""],
        ["Dinner with [forgotten] on Friday", "Dinner with [forgotten] on Friday", ""],
        ["[forgotten]来了", "[forgotten]来了", ""],
      ]);
      assert.ok(await docs.get(id));
      assert.deepEqual((await docs.query("张小凤")).length <= 3, true);
      docs.compact();
      for await (const entry of Deno.readDir(dir)) {
        assert.equal(await fileHolds(join(dir, entry.name), "张小凤"), false, entry.name);
      }
    } finally {
      docs.close();
      graph.close();
    }
  });
});

Deno.test("RelevanceContext.redact blanks names out of events and writes the window at once", async () => {
  await inTemp(async (dir) => {
    const clock = new ManualClock();
    const graph = GraphDB.open({ path: ":memory:", clock });
    const logger = new MemoryLogger();
    const embedder = createHashEmbedder({ dim: 64 });
    const store = new JsonContextStore({ path: join(dir, "context.json"), logger });
    const open = () =>
      RelevanceContext.load({
        clock,
        logger,
        embedder,
        store,
        archive: () => Promise.resolve(),
        topK: () => 10,
        redactor: graph.forgotten,
      });
    const context = await open();
    context.append(cliEvent(1, { input: "Bo is coming" }));
    context.append(cliEvent(2, {
      role: "agent",
      response: "Say hi to Bo",
      tools: [{ name: "doc_query", output: "Bo's notes" }],
    }));
    await context.commit();
    await graph.forget("Bo");
    assert.equal(await context.redact(graph.forgotten), 2);
    context.append(cliEvent(3, { input: "Bo again" }));
    await context.flush();
    for (const file of ["context.json", "context.journal"]) {
      const at = join(dir, file);
      if (await Deno.stat(at).catch(() => undefined)) {
        assert.equal(await fileHolds(at, "bo "), false, file);
      }
    }
    const reloaded = await open();
    assert.deepEqual(reloaded.events().map((e) => e.input ?? e.response), [
      "[forgotten] is coming",
      "Say hi to [forgotten]",
      "[forgotten] again",
    ]);
    assert.equal(reloaded.events()[1]!.tools![0]!.output, "[forgotten]'s notes");
    assert.equal(eventsToDocuments(reloaded.events()).length, 3);
    await reloaded.flush();
    graph.close();
  });
});
