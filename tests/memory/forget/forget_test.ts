/**
 * Forget means forgotten (issue 14 item 2), through a whole home: the names enter every tier
 * through real turns (the model's memory_commit and doc_commit, the text log, the context
 * window pruned into documents), then the owner asks to forget one (the model calls
 * memory_purge) and `memory forget` forgets the other; then 30 days of every loop on its
 * schedule, a model that still names them, and a new mention: nothing comes back anywhere, and
 * `grep -r` of the home finds neither name, while the daemon runs and after it stops.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAI } from "../../fixtures/fake_llm.ts";
import { scriptedBrain } from "../../fakes/brain.ts";
import { openTestHome, type TestHome } from "../../fakes/memory_home.ts";
import { grepHome } from "../../fakes/grep.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const LATIN = "Mirelle";
const CHINESE = "张小凤";

const brain = scriptedBrain({
  rules: [
    {
      when: "My friend Mirelle",
      calls: [{
        name: "memory_commit",
        arguments: {
          triples: [
            { subject: "owner", predicate: "friend_of", object: "Mirelle" },
            { subject: "Mirelle", predicate: "lives_in", object: "Lyon" },
            { subject: "Mirelle", predicate: "likes", object: "sailing" },
          ],
          sentence_text: "My friend Mirelle lives in Lyon and loves sailing.",
        },
      }],
      text: "Noted: Mirelle lives in Lyon.",
    },
    {
      when: "我的朋友张小凤",
      calls: [{
        name: "memory_commit",
        arguments: {
          triples: [
            { subject: "owner", predicate: "friend_of", object: "张小凤" },
            { subject: "张小凤", predicate: "居住地", object: "杭州" },
          ],
          sentence_text: "我的朋友张小凤住在杭州。",
        },
      }],
      text: "好的，记住了张小凤住在杭州。",
    },
    {
      when: "Save a note",
      calls: [{
        name: "doc_commit",
        arguments: { content: "Dinner with Mirelle and 张小凤 on Friday at the harbour." },
      }],
      text: "Saved.",
    },
    {
      when: "Please forget Mirelle",
      calls: [{ name: "memory_purge", arguments: { name: "Mirelle" } }],
      text: "I have forgotten Mirelle.",
    },
    // After the forget the model still tries: a commit naming her is refused.
    {
      when: "Mirelle called",
      calls: [{
        name: "memory_commit",
        arguments: { triples: [{ subject: "owner", predicate: "knows", object: "Mirelle" }] },
      }],
      text: "Mirelle? Noted.",
    },
  ],
  // A model that names them whatever the document says (the rules would not).
  consolidate: (kind) =>
    kind === "archive"
      ? JSON.stringify({
        triples: [
          { subject: "owner", predicate: "knows", object: "Mirelle" },
          { subject: "张小凤", predicate: "likes", object: "tea" },
          { subject: "owner", predicate: "likes", object: "harbour walks" },
        ],
      })
      : "{}",
});

const SIX_HOURS = {
  "core.memory.distill_interval_ms": 6 * HOUR,
  "core.memory.archive_interval_ms": 6 * HOUR,
  "core.memory.merge_interval_ms": 6 * HOUR,
  "core.memory.review_interval_ms": 6 * HOUR,
  "core.memory.rule_distill_interval_ms": 6 * HOUR,
  "core.agent.max_context_size": 1,
};

Deno.test("memory forget: purge, then 30 days of every loop: nothing comes back, grep -r finds nothing", async () => {
  await using llm = startFakeOpenAI({ fallback: brain });
  await using home = await openTestHome({ llm, config: SIX_HOURS });
  const { memory } = home;
  await converse(home);
  await memory.upkeep.knowledge.create("friends/sailing", "# Sailing\nMirelle taught me to sail.");
  await home.live(4 * DAY, 16); // prune into documents, documents cold, archived into the graph
  assert.ok(await memory.graph.graph.entity(LATIN), "the graph knew her");
  assert.ok((await grepHome(home.dir, LATIN)).length >= 3, "the name was in several files");

  const purge = await home.say("Please forget Mirelle, I don't want to remember her.");
  assert.equal(purge.status, "ok", purge.text);
  const report = await memory.forget.forget(CHINESE);
  assert.equal(report.graph.entities, 1);
  assert.ok(report.textLog.lines >= 1, JSON.stringify(report));
  const tool = llm.requests.flatMap((r) => r.body.messages)
    .find((m) => m.role === "tool" && String(m.content).startsWith(`Forgot "${LATIN}"`));
  assert.ok(tool, "memory_purge answered with the report");
  assert.match(String(tool.content), /friends\/sailing/, "the knowledge entry is reported");
  assert.deepEqual(await grepHome(home.dir, LATIN), ["knowledge/friends/sailing/content.md"]);
  // The owner edits their own note, as the report says.
  await Deno.remove(join(home.paths.knowledge, "friends"), { recursive: true });

  assert.equal((await home.say("Mirelle called me yesterday.")).status, "ok");
  const before = runs(home);
  await home.live(30 * DAY, 120);
  for (const [loop, count] of Object.entries(runs(home))) {
    assert.ok(count - before[loop]! >= 100, `${loop} ran ${count - before[loop]!} times`);
  }
  const graph = memory.graph.graph;
  for (const name of [LATIN, CHINESE]) {
    assert.equal(await graph.entity(name), undefined, `${name} is not in the graph`);
    const recalled = await graph.recall({ keywords: [name] });
    assert.deepEqual(recalled.relations, []);
  }
  const owner = (await graph.history("owner")).map((r) => `${r.type} ${r.target}`);
  assert.ok(owner.includes("likes harbour walks"), "the rest of memory still works");
  for (const event of memory.context.events()) {
    assert.doesNotMatch(`${event.input} ${event.response}`, /Mirelle|张小凤/);
  }
  assert.deepEqual(await grepHome(home.dir, LATIN), [], "running: no file holds her name");
  assert.deepEqual(await grepHome(home.dir, CHINESE), []);
  await home.close();
  assert.deepEqual(await grepHome(home.dir, LATIN), [], "stopped: no file holds her name");
  assert.deepEqual(await grepHome(home.dir, CHINESE), []);
});

async function converse(home: TestHome): Promise<void> {
  const lines = [
    "My friend Mirelle lives in Lyon and loves sailing.",
    "我的朋友张小凤住在杭州。",
    "Save a note: dinner on Friday.",
    "Mirelle's birthday is in May, remind me to buy her a book.",
    "张小凤说她下个月来北京。",
  ];
  for (let i = 0; i < 12; i++) lines.push(`What should I cook tonight, idea ${i}?`);
  for (const text of lines) {
    const answer = await home.say(text);
    assert.equal(answer.status, "ok", `${text}: ${answer.text}`);
    await home.live(10 * 60_000);
  }
}

function runs(home: TestHome): Record<string, number> {
  return Object.fromEntries(home.memory.upkeep.heartbeats().map((s) => [s.name, s.runs]));
}
