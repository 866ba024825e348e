import assert from "node:assert/strict";
import { InMemoryGraph } from "../../../core/mod.ts";
import { KEYWORD_CONFIDENCE } from "../../../memory/loops/heartbeat.ts";
import { reply } from "../../fixtures/fake_llm.ts";
import { lastUserText, MIN, only, tickUntilRun, withRig } from "./_heartbeat_support.ts";

Deno.test("rule_distill loop commits facts from the text log every 10 minutes and keeps its watermark", async () => {
  await withRig(async (rig) => {
    only(rig, "rule_distill");
    const memoryGraph = new InMemoryGraph({ clock: rig.clock });
    const at = rig.clock.now();
    await rig.textLog.append({
      turnId: "t1",
      source: "qq",
      channel: "qq",
      sender: "qq:42",
      input: "我叫小明，我住在杭州。",
      reply: "你好小明",
      inputAt: at,
      replyAt: at,
    });
    await rig.textLog.append({
      turnId: "t2",
      source: "cli",
      channel: "cli",
      input: "I like that you remember things. I work as a nurse.",
      reply: "Noted",
      inputAt: at,
      replyAt: at,
    });
    let heartbeat = await rig.start({ memoryGraph });
    await tickUntilRun(rig, heartbeat, "rule_distill", 10 * MIN);
    const facts = (await memoryGraph.recall({ keywords: [] })).relations
      .map((r) => `${r.source} ${r.type} ${r.target}`).sort();
    assert.deepEqual(facts, ["owner 职业 nurse", "qq:42 姓名 小明", "qq:42 居住地 杭州"].sort());
    assert.deepEqual(heartbeat.stats().find((s) => s.name === "rule_distill")?.last, {
      turns: 2,
      triples: 3,
    });
    await heartbeat.stop();

    // A restart reads on from the persisted watermark: nothing is distilled twice.
    heartbeat = await rig.start({ memoryGraph });
    await tickUntilRun(rig, heartbeat, "rule_distill", 10 * MIN, 2);
    const stats = heartbeat.stats().find((s) => s.name === "rule_distill")!;
    assert.deepEqual(stats.last, { turns: 0, triples: 0 });
    assert.equal(stats.totals.triples, 3);
  });
});

Deno.test("archive loop without an LLM turns cold documents into rule and keyword triples, then removes them", async () => {
  await withRig(async (rig) => {
    only(rig, "archive");
    await rig.coldDocument(
      "[2026-01-01 10:00] cli: 我叫小明。我喜欢西湖龙井茶，周末常去杭州爬山。",
    );
    const heartbeat = await rig.start();
    await tickUntilRun(rig, heartbeat, "archive", 60 * MIN);
    assert.equal(rig.documents.size(), 0);
    const history = await rig.graph.history("owner");
    assert.ok(history.some((r) => r.type === "姓名" && r.target === "小明"));
    const mentions = await rig.maintenance.lowConfidence({ below: 0.6, afterId: 0, limit: 50 });
    assert.ok(mentions.length > 0);
    assert.ok(mentions.every((r) => r.type === "mentions" && r.confidence === KEYWORD_CONFIDENCE));
    const last = heartbeat.stats().find((s) => s.name === "archive")!.last;
    assert.equal(last.archived, 1);
    assert.equal(last.fallback, 1);
    assert.equal(last.llm, 0);
  });
});

Deno.test("archive loop asks the model through the consolidation path and falls back on bad output", async () => {
  await withRig(async (rig) => {
    only(rig, "archive");
    rig.server!.enqueue(
      (request) =>
        lastUserText(request.body).includes("DOC-A")
          ? reply.text(
            '```json\n{"triples":[{"subject":"owner","predicate":"养","object":"一只猫","confidence":0.8}]}\n```',
          )
          : reply.text("I could not find any facts, sorry."),
      (request) =>
        lastUserText(request.body).includes("DOC-A")
          ? reply.text('{"triples":[{"subject":"owner","predicate":"养","object":"一只猫"}]}')
          : reply.text("I could not find any facts, sorry."),
    );
    await rig.coldDocument("DOC-A [2026-01-01 10:00] cli: 我家里养了一只猫");
    await rig.coldDocument("DOC-B [2026-01-01 11:00] cli: 我住在成都");
    const heartbeat = await rig.start();
    await tickUntilRun(rig, heartbeat, "archive", 60 * MIN);
    assert.equal(rig.server!.requests.length, 2);
    assert.ok(
      lastUserText(rig.server!.requests[0]!.body).startsWith("[Memory consolidation: archive]"),
    );
    assert.equal(rig.documents.size(), 0);
    const owner = await rig.graph.history("owner");
    const cat = owner.find((r) => r.type === "养");
    assert.equal(cat?.target, "一只猫");
    assert.equal(cat?.confidence, 0.8);
    assert.ok(owner.some((r) => r.type === "居住地" && r.target === "成都")); // the fallback
    const last = heartbeat.stats().find((s) => s.name === "archive")!.last;
    assert.deepEqual([last.llm, last.fallback, last.archived], [1, 1, 2]);
    // Consolidation turns stay out of the owner's conversation.
    assert.equal(rig.kernel!.agent.context.size(), 0);
  }, { llm: true });
});

Deno.test("merge loop folds exact duplicates without an LLM and leaves near names alone", async () => {
  await withRig(async (rig) => {
    only(rig, "merge");
    await rig.graph.commit([
      { subject: "owner", predicate: "visited", object: "New York" },
      { subject: "owner", predicate: "likes", object: "new-york" },
      { subject: "owner", predicate: "knows", object: "Zhang Wei" },
      { subject: "owner", predicate: "knows", object: "Zhang Weii" },
    ]);
    const heartbeat = await rig.start();
    await tickUntilRun(rig, heartbeat, "merge", 120 * MIN);
    const last = heartbeat.stats().find((s) => s.name === "merge")!.last;
    assert.equal(last.exact, 1);
    assert.equal(last.candidates, 1);
    assert.equal(last.merged, 0);
    assert.equal(
      (await rig.graph.entity("new-york"))?.id,
      (await rig.graph.entity("New York"))?.id,
    );
    assert.notEqual(
      (await rig.graph.entity("Zhang Weii"))?.id,
      (await rig.graph.entity("Zhang Wei"))?.id,
    );
    assert.ok(rig.logger.lines.some((l) => /no LLM source/.test(l.msg)));
  });
});

Deno.test("merge loop merges near duplicates the model approves and does not ask about refused pairs again", async () => {
  await withRig(async (rig) => {
    only(rig, "merge");
    await rig.graph.commit([
      { subject: "owner", predicate: "knows", object: "Li Ming" },
      { subject: "owner", predicate: "knows", object: "Li Mingg" },
    ]);
    rig.server!.enqueue(reply.text('{"decisions":[{"pair":1,"merge":false}]}'));
    const heartbeat = await rig.start();
    await tickUntilRun(rig, heartbeat, "merge", 120 * MIN);
    assert.match(
      lastUserText(rig.server!.requests[0]!.body),
      /"Li Ming.*"Li Mingg"|"Li Mingg.*"Li Ming"/,
    );
    assert.equal(heartbeat.stats().find((s) => s.name === "merge")!.last.refused, 1);

    await rig.graph.commit([
      { subject: "owner", predicate: "knows", object: "Zhang Wei" },
      { subject: "owner", predicate: "knows", object: "Zhang Weii" },
    ]);
    rig.server!.enqueue(reply.text('{"decisions":[{"pair":1,"merge":true,"keep":"Zhang Wei"}]}'));
    await tickUntilRun(rig, heartbeat, "merge", 120 * MIN, 2);
    assert.equal(rig.server!.requests.length, 2);
    assert.doesNotMatch(lastUserText(rig.server!.requests[1]!.body), /Li Ming/);
    assert.equal(heartbeat.stats().find((s) => s.name === "merge")!.last.merged, 1);
    const zhang = await rig.graph.entity("Zhang Weii");
    assert.equal(zhang?.name, "Zhang Wei");
  }, { llm: true });
});

Deno.test("review loop skips low-confidence relations without an LLM", async () => {
  await withRig(async (rig) => {
    only(rig, "review");
    await rig.graph.commit([
      { subject: "tea", predicate: "mentions", object: "hangzhou", confidence: 0.3 },
    ]);
    const heartbeat = await rig.start();
    await tickUntilRun(rig, heartbeat, "review", 120 * MIN);
    assert.deepEqual(heartbeat.stats().find((s) => s.name === "review")!.last, {
      pending: 1,
      confirmed: 0,
      fixed: 0,
      deleted: 0,
      skipped: 1,
    });
  });
});

Deno.test("review loop confirms, fixes and deletes low-confidence relations as the model says", async () => {
  await withRig(async (rig) => {
    only(rig, "review");
    await rig.graph.commit([
      {
        subject: "owner",
        predicate: "居住地",
        object: "杭",
        confidence: 0.3,
        sentence: "我住在杭州",
      },
      { subject: "tea", predicate: "mentions", object: "longjing", confidence: 0.3 },
      { subject: "tea", predicate: "mentions", object: "weekend", confidence: 0.3 },
      { subject: "owner", predicate: "姓名", object: "小明", confidence: 0.9 },
    ]);
    rig.server!.enqueue((request) => {
      const ids = [...lastUserText(request.body).matchAll(/#(\d+) /g)].map((m) => Number(m[1]));
      return reply.text(JSON.stringify({
        reviews: [
          { id: ids[0], action: "fix", object: "杭州" },
          { id: ids[1], action: "confirm" },
          { id: ids[2], action: "delete" },
        ],
      }));
    });
    const heartbeat = await rig.start();
    await tickUntilRun(rig, heartbeat, "review", 120 * MIN);
    const prompt = lastUserText(rig.server!.requests[0]!.body);
    assert.match(prompt, /from: "我住在杭州"/);
    assert.doesNotMatch(prompt, /小明/);
    const last = heartbeat.stats().find((s) => s.name === "review")!.last;
    assert.deepEqual([last.pending, last.fixed, last.confirmed, last.deleted], [3, 1, 1, 1]);
    assert.deepEqual(
      await rig.maintenance.lowConfidence({ below: 0.6, afterId: 0, limit: 10 }),
      [],
    );
    const owner = await rig.graph.history("owner");
    assert.ok(
      owner.some((r) => r.type === "居住地" && r.target === "杭州" && r.status === "active"),
    );
    const tea = await rig.graph.history("tea");
    assert.equal(tea.find((r) => r.target === "weekend")?.status, "deleted");
  }, { llm: true });
});

Deno.test("distill loop prunes the context window into documents every 30 minutes", async () => {
  await withRig(async (rig) => {
    only(rig, "distill");
    for (let i = 0; i < 20; i++) {
      rig.context.append({
        id: `e${i}`,
        role: "user",
        source: "cli",
        channel: "cli",
        input: `message number ${i} about topic ${i % 3}`,
        turnIds: [`t${i}`],
        timestamp: rig.clock.now() + i,
      });
    }
    const heartbeat = await rig.start();
    await tickUntilRun(rig, heartbeat, "distill", 30 * MIN);
    assert.equal(rig.context.size(), 12);
    assert.equal(rig.documents.size(), 8);
    assert.equal(heartbeat.stats().find((s) => s.name === "distill")!.last.archived, 8);
  });
});

Deno.test("archive loop with an unreachable LLM distils by rules, saying so once per run", async () => {
  await withRig(async (rig) => {
    only(rig, "archive");
    await rig.coldDocument("[2026-01-01 10:00] cli: 我叫小明。");
    await rig.coldDocument("[2026-01-01 11:00] cli: 我住在成都。");
    await rig.coldDocument("[2026-01-01 12:00] cli: I work as a nurse.");
    const heartbeat = await rig.start();
    await tickUntilRun(rig, heartbeat, "archive", 60 * MIN);
    const stats = heartbeat.stats().find((s) => s.name === "archive")!;
    assert.deepEqual(
      [stats.last.archived, stats.last.fallback, stats.last.llm, stats.last.deferred],
      [3, 3, 0, 0],
      JSON.stringify(stats),
    );
    assert.equal(rig.documents.size(), 0, "nothing waits for the LLM to come back");
    const owner = (await rig.graph.history("owner")).map((r) => `${r.type} ${r.target}`).sort();
    assert.deepEqual(owner.filter((f) => !f.startsWith("mentions")), [
      "姓名 小明",
      "居住地 成都",
      "职业 nurse",
    ]);
    const said = rig.logger.lines.filter((l) => /no LLM answered/.test(l.msg));
    assert.equal(said.length, 1, "logged once per run, not per document");
    assert.equal(said[0]!.fields?.reason, "providers_all_failed");
  }, { llm: "down" });
});

Deno.test("archive loop applies a new interval at once, not when the old timer fires", async () => {
  await withRig(async (rig) => {
    only(rig, "archive");
    await rig.coldDocument("[2026-01-01 10:00] cli: 我叫小明。");
    const heartbeat = await rig.start();
    await rig.clock.tick(10 * MIN);
    rig.config.registry.set("core.memory.archive_interval_ms", 15 * MIN);
    await tickUntilRun(rig, heartbeat, "archive", 5 * MIN);
    assert.equal(rig.documents.size(), 0, "ran 15 minutes after the start, not 60");
    const runs = () => heartbeat.stats().find((s) => s.name === "archive")!.runs;
    rig.config.registry.set("core.memory.archive_interval_ms", 60 * MIN);
    await rig.clock.tick(20 * MIN);
    assert.equal(runs(), 1, "not 15 minutes after the last run any more");
    rig.config.registry.set("core.memory.archive_interval_ms", 5 * MIN); // overdue: at once
    await tickUntilRun(rig, heartbeat, "archive", 0, 2);
    assert.equal(runs(), 2);
  });
});
