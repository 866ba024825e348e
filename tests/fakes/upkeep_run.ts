/**
 * One run of every memory loop in a lived-in home, recording what the loops send the model
 * (issue 14 item 6: the test of lean upkeep calls and the figure `upkeep_tokens_per_call`).
 *
 * The home (openTestHome: the real kernel and tiers over a fake OpenAI server on 127.0.0.1) has
 * a conversation in its window, cold documents, near-duplicate names and unsure facts, so the
 * archive, merge and review loops each ask the model. Every loop is then run once, in
 * MEMORY_LOOPS order; the requests that arrive meanwhile are the loops' own.
 */
import { MEMORY_LOOPS } from "../../memory/loops/heartbeat.ts";
import { MEMORY_LOOP_KEYS } from "../../memory/loops/settings.ts";
import { type FakeRequestBody, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { scriptedBrain } from "./brain.ts";
import { openTestHome, type TestHome } from "./memory_home.ts";

/** The persona of the home (upkeep prompts must not carry it). */
export const UPKEEP_PERSONA = "You are Wren, the household's patient assistant.";
/** Said in the window only: an upkeep prompt that carries it carries the timeline. */
export const WINDOW_MARKER = "ZEBRA-7";

const HOUR = 3_600_000;

/** The owner's conversation before the loops run (it stays in the window). */
const SAID = [
  "我叫王伟，我住在杭州。",
  `My locker code word is ${WINDOW_MARKER}, keep it in mind.`,
  "I work as a nurse at St Olav.",
  "我喜欢吃火锅和烧烤",
  "My sister Ann lives in Bergen.",
  "What shall we cook tonight?",
];

/** Exchanges archived long ago, now cold (the archive loop's data). */
const COLD = [
  "[2026-01-03 09:12] web: 我养了一只猫，叫咪咪，它三岁了。\n[2026-01-03 09:12] you: 咪咪听起来很可爱！",
  "[2026-01-04 18:40] web: I started learning the cello last month; lessons are on Thursdays.\n" +
  "[2026-01-04 18:40] you: That is a lovely instrument. How are the lessons going?",
  "[2026-01-06 20:05] web: My brother Tom moved to Trondheim for a job at the hospital.\n" +
  "[2026-01-06 20:05] you: Trondheim is a fine city. I hope the move went well.",
];

/** Names that differ by a letter (merge) and facts the rules were unsure of (review). */
const FACTS = [
  { subject: "owner", predicate: "friend_of", object: "Annika Lindqvist-Berg", confidence: 0.9 },
  { subject: "Ann", predicate: "knows", object: "Annika Lindquist-Berg", confidence: 0.9 },
  { subject: "owner", predicate: "visited", object: "Bergen Science Museum", confidence: 0.9 },
  { subject: "Tom", predicate: "visited", object: "Bergen Sciense Museum", confidence: 0.9 },
  ...[
    ["owner", "喜好", "爬山", "周末常去杭州爬山"],
    ["owner", "居住地", "杭", "我住在杭州"],
    ["tea", "mentions", "longjing", "我喜欢西湖龙井茶"],
    ["cello", "mentions", "thursday", "lessons are on Thursdays"],
    ["Tom", "工作单位", "hospital", "a job at the hospital"],
    ["owner", "宠物", "咪咪", "我养了一只猫，叫咪咪"],
  ].map(([subject, predicate, object, sentence]) => ({
    subject: subject!,
    predicate: predicate!,
    object: object!,
    sentence,
    confidence: 0.3,
  })),
];

/** What one run of every loop sent and did. */
export interface UpkeepRun {
  /** The bodies of the requests the loops sent, in order. */
  requests: FakeRequestBody[];
  /** Each loop's counts of this run. */
  last: Record<string, Record<string, number>>;
}

/** Build the home, run every loop once, and return what reached the model. */
export async function runEveryLoop(): Promise<UpkeepRun> {
  await using llm = startFakeOpenAI({ fallback: brain });
  // The loops run when this asks, not on their timers.
  const stopped = Object.fromEntries(MEMORY_LOOP_KEYS.map((k) => [k.key, 0]));
  await using home = await openTestHome({ llm, config: stopped, persona: UPKEEP_PERSONA });
  await seed(home);
  const before = llm.requests.length;
  const last: UpkeepRun["last"] = {};
  for (const loop of MEMORY_LOOPS) {
    last[loop] = (await home.memory.upkeep.runHeartbeat(loop)).last;
  }
  return { requests: llm.requests.slice(before).map((r) => r.body), last };
}

async function seed(home: TestHome): Promise<void> {
  for (const text of COLD) {
    await home.memory.documents.insert({ content: text, source: "web", turnIds: ["old"] });
  }
  await home.memory.graph.graph.commit(FACTS);
  home.clock.advance(73 * HOUR); // the documents are cold now
  for (const text of SAID) {
    const reply = await home.say(text);
    if (reply.status !== "ok") throw new Error(`The home did not answer "${text}": ${reply.text}`);
  }
}

/** A model that answers each loop in its format (and the owner with "OK."). */
const brain = scriptedBrain({
  consolidate: (kind, prompt) => {
    if (kind === "archive") {
      return JSON.stringify({
        triples: [{ subject: "owner", predicate: "note", object: prompt.slice(-20) }],
      });
    }
    if (kind === "merge") return JSON.stringify({ decisions: [{ pair: 1, merge: true }] });
    const ids = [...prompt.matchAll(/^#(\d+) /gm)].map((m) => Number(m[1]));
    return JSON.stringify({ reviews: ids.map((id) => ({ id, action: "confirm" })) });
  },
});
