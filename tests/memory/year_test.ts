/**
 * A year in a test (issue 14 item 9): an injected clock drives 365 days of scripted owner
 * messages, in Chinese and English — moves, new pets, a job change, a friend forgotten on request,
 * daily small talk — through the real memory path (the agent over a fake LLM server on
 * 127.0.0.1, the text log, the context window, documents, the graph) with every heartbeat loop
 * on its schedule. At the end: each stated fact is open, or closed at the day it stopped being
 * true; the forgotten friend is in no file of the home; the window and the documents stayed
 * small; cold documents were distilled; every loop ran as often as its interval says.
 */
import assert from "node:assert/strict";
import { startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { scriptedBrain } from "../fakes/brain.ts";
import { openTestHome } from "../fakes/memory_home.ts";
import { grepHome } from "../fakes/grep.ts";
import { distillText } from "../../memory/loops/distiller.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const FRIEND = "Bo Lindqvist";

/** What the owner says on which day (at 09:00). */
const SCRIPT: Record<number, string[]> = {
  1: [
    "我叫王伟。",
    "I live in Oslo.",
    "我喜欢吃火锅和烧烤",
    "I work as a nurse at St Olav.",
    "My sister Ann lives in Bergen.",
    "我养了一只猫，叫咪咪",
  ],
  40: ["We just moved to Bergen."],
  90: ["We adopted a dog, Rex."],
  150: ["我现在在腾讯上班", "My job is a teacher"],
  200: [`My friend ${FRIEND} visits next week.`],
  201: [`${FRIEND} loved the fjords.`],
  210: [`Please forget ${FRIEND}, we fell out.`],
  250: ["我们搬到杭州了"],
  300: ["I have a dog named Rex"],
};

const brain = scriptedBrain({
  rules: [
    {
      when: `My friend ${FRIEND}`,
      calls: [{
        name: "memory_commit",
        arguments: { triples: [{ subject: "owner", predicate: "friend_of", object: FRIEND }] },
      }],
      text: `I'll remember ${FRIEND}.`,
    },
    {
      when: `Please forget ${FRIEND}`,
      calls: [{ name: "memory_purge", arguments: { name: FRIEND } }],
      text: `Forgotten.`,
    },
  ],
  // A model that finds in an archived exchange the facts the rules find in its owner's lines.
  consolidate: (kind, prompt) => {
    if (kind !== "archive") return "{}";
    const said = prompt.split("\n").filter((l) => /^\[[^\]]*\] web: /.test(l))
      .map((l) => l.replace(/^\[[^\]]*\] web: /, "")).join("\n");
    const triples = distillText(said).map(({ subject, predicate, object }) => ({
      subject,
      predicate,
      object,
    }));
    return JSON.stringify({ triples });
  },
});

const SCHEDULE = {
  "core.memory.rule_distill_interval_ms": 12 * HOUR,
  "core.memory.distill_interval_ms": 12 * HOUR,
  "core.memory.archive_interval_ms": DAY,
  "core.memory.merge_interval_ms": 7 * DAY,
  "core.memory.review_interval_ms": 7 * DAY,
  "core.agent.max_context_size": 4,
};

Deno.test("a year of memory: facts kept or closed on time, a forgotten friend gone, tiers bounded, loops on schedule", async () => {
  await using llm = startFakeOpenAI({ fallback: brain });
  await using home = await openTestHome({ llm, config: SCHEDULE });
  const t0 = home.clock.now();
  const saidOn = (day: number) => t0 + (day - 1) * DAY + 9 * HOUR;
  let turns = 0;
  for (let day = 1; day <= 365; day++) {
    // Steps end on the 6-hour grid the loops are due on (and at 09:00, when none is due), so a
    // loop runs at its due time, not at the end of a longer step.
    await home.live(6 * HOUR);
    await home.live(3 * HOUR);
    const lines = [
      ...SCRIPT[day] ?? [],
      ...(day % 2 === 0 ? [`What shall we cook, day ${day}?`] : []),
    ];
    for (const text of lines) {
      const reply = await home.say(text);
      assert.equal(reply.status, "ok", `day ${day}: ${text}: ${reply.text}`);
      turns++;
    }
    await home.live(3 * HOUR);
    await home.live(12 * HOUR, 2);
  }
  const { memory } = home;
  const graph = memory.graph.graph;

  // Rule facts start when the turn came in: 09:00 on the day said (the "late" ones on day 1).
  const starts: Record<string, number> = {
    "居住地 Bergen": 40,
    "宠物 Rex": 90,
    "工作单位 腾讯": 150,
    "职业 teacher": 150,
    "居住地 杭州": 250,
  };
  const day = (ms: number) => `d${Math.round((ms - t0) / DAY) + 1}`;
  const facts = new Map<string, string>();
  for (const r of await graph.history("owner")) {
    if (r.status !== "active" || r.type === "mentions") continue;
    const fact = `${r.type} ${r.target}`;
    assert.ok(!facts.has(fact), `${fact} is stored once, however often it was said`);
    facts.set(fact, r.validTo === undefined ? "open" : `closed ${day(r.validTo)}`);
    assert.equal(r.validFrom, saidOn(starts[fact] ?? 1), `${fact} starts when it was said`);
  }
  assert.deepEqual(Object.fromEntries([...facts].sort()), {
    "喜好 吃火锅": "open",
    "喜好 吃烧烤": "open",
    "姐妹 Ann": "open",
    "姓名 王伟": "open",
    "宠物 Rex": "open",
    "宠物 咪咪": "open",
    "居住地 Bergen": "closed d250",
    "居住地 Oslo": "closed d40",
    "居住地 杭州": "open",
    "工作单位 St Olav": "closed d150",
    "工作单位 腾讯": "open",
    "职业 nurse": "closed d150",
    "职业 teacher": "open",
  });
  assert.equal(await graph.entity(FRIEND), undefined);
  assert.deepEqual(await grepHome(home.dir, "Lindqvist"), [], "running: the friend is in no file");

  assert.ok(memory.context.size() <= 20, `the window holds ${memory.context.size()} events`);
  assert.ok(memory.documents.size() <= 12, `${memory.documents.size()} documents remain`);
  const stats = Object.fromEntries(memory.upkeep.heartbeats().map((s) => [s.name, s]));
  const archived = stats.archive!.totals;
  assert.ok(archived.archived! >= turns - 40, JSON.stringify(archived));
  assert.ok(
    archived.llm! === archived.archived && archived.triples! >= 10,
    JSON.stringify(archived),
  );
  const expected = { "rule_distill": 730, distill: 730, archive: 365, merge: 52, review: 52 };
  for (const [loop, runs] of Object.entries(expected)) {
    const s = stats[loop]!;
    assert.equal(s.failures, 0, `${loop}: ${s.lastError}`);
    assert.ok(Math.abs(s.runs - runs) <= 1, `${loop} ran ${s.runs} times, expected ${runs}`);
  }
  await home.close();
  assert.deepEqual(await grepHome(home.dir, "Lindqvist"), [], "stopped: the friend is in no file");
});
