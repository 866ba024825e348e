import assert from "node:assert/strict";
import {
  type ContextEvent,
  type ContextSnapshot,
  type ContextStore,
  RelevanceContext,
  type RelevanceContextOptions,
  textForVector,
} from "../../core/mod.ts";
import { createHashEmbedder } from "../../memory/hash_embedder.ts";
import { ManualClock } from "../fakes/clock.ts";
import { MemoryLogger } from "../fakes/logger.ts";

class MemoryContextStore implements ContextStore {
  saves: ContextSnapshot[] = [];
  initial?: ContextSnapshot;
  load() {
    return Promise.resolve(this.initial);
  }
  save(snapshot: ContextSnapshot) {
    this.saves.push(structuredClone(snapshot));
    return Promise.resolve();
  }
}

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

function event(i: number, text: string, extra: Partial<ContextEvent> = {}): ContextEvent {
  return {
    id: `e${i}`,
    role: "user",
    source: "cli",
    channel: "cli",
    input: text,
    turnIds: [`t${i}`],
    timestamp: T0 + i * HOUR,
    ...extra,
  };
}

async function setup(overrides: Partial<RelevanceContextOptions> = {}) {
  const clock = new ManualClock(T0);
  const store = new MemoryContextStore();
  const archived: ContextEvent[][] = [];
  const context = await RelevanceContext.load({
    clock,
    logger: new MemoryLogger(),
    embedder: createHashEmbedder(),
    store,
    archive: (events) => {
      archived.push(events);
      return Promise.resolve();
    },
    topK: () => 14,
    ...overrides,
  });
  return { clock, store, archived, context };
}

const TOPICS = [
  "my cat Mimi likes tuna and sleeps on the sofa",
  "the stock market fell sharply today",
  "how do I fix a flat bicycle tyre",
  "the weather forecast says rain tomorrow",
];

Deno.test("RelevanceContext prune keeps the newest 10 and the most relevant, archiving the rest", async () => {
  const { context, archived } = await setup();
  for (let i = 0; i < 20; i++) context.append(event(i, `${TOPICS[i % 4]} (${i})`));
  const result = await context.prune("what does my cat Mimi like to eat");
  assert.deepEqual(result, { kept: 14, archived: 6, dropped: 0 });
  const ids = context.events().map((e) => e.id);
  for (let i = 10; i < 20; i++) assert.ok(ids.includes(`e${i}`), `recent e${i} kept`);
  // Of the 10 older events, the 4 kept are the cat ones (0, 4, 8) plus one more.
  for (const i of [0, 4, 8]) assert.ok(ids.includes(`e${i}`), `relevant e${i} kept`);
  const times = context.events().map((e) => e.timestamp);
  assert.deepEqual(times, [...times].sort((a, b) => a - b));
  assert.equal(archived.length, 1);
  assert.equal(archived[0]!.length, 6);
  for (const e of archived[0]!) {
    assert.equal(e.timestamp, T0 + Number(e.id.slice(1)) * HOUR, "original timestamp");
    assert.ok(!ids.includes(e.id));
  }
});

Deno.test("RelevanceContext prune drops agentcli and terminal events instead of archiving", async () => {
  const { context, archived } = await setup({ topK: () => 10 });
  for (let i = 0; i < 12; i++) {
    context.append(event(i, `line ${i}`, { source: i === 0 ? "terminal" : "cli" }));
  }
  assert.deepEqual(await context.prune("anything"), { kept: 10, archived: 1, dropped: 1 });
  assert.deepEqual(archived[0]!.map((e) => e.id), ["e1"]);
});

Deno.test("RelevanceContext keeps everything while at or under topK", async () => {
  const { context, archived } = await setup();
  for (let i = 0; i < 14; i++) context.append(event(i, `x ${i}`));
  assert.deepEqual(await context.prune("x"), { kept: 14, archived: 0, dropped: 0 });
  assert.equal(archived.length, 0);
});

Deno.test("RelevanceContext keeps events appended while a prune awaits the archive", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  const { context } = await setup({ topK: () => 10, archive: () => gate });
  for (let i = 0; i < 12; i++) context.append(event(i, `e ${i}`));
  const pruning = context.prune("e");
  await new Promise((r) => setTimeout(r, 0));
  context.append(event(99, "late"));
  release();
  await pruning;
  assert.ok(context.events().some((e) => e.id === "e99"));
  assert.equal(context.size(), 11);
});

Deno.test("RelevanceContext saves debounced after 5 s and once more on flush", async () => {
  const { context, clock, store } = await setup();
  context.append(event(1, "a"));
  context.append(event(2, "b"));
  await clock.tick(4999);
  assert.equal(store.saves.length, 0);
  await clock.tick(1);
  await context.flush();
  assert.equal(store.saves.length, 1);
  assert.deepEqual(store.saves[0]!.events.map((e) => e.id), ["e1", "e2"]);
  context.append(event(3, "c"));
  await context.flush();
  assert.equal(store.saves.length, 2);
  assert.equal(clock.pending, 0, "flush cancels the pending timer");
  await context.flush();
  assert.equal(store.saves.length, 2, "nothing new, nothing written");
});

Deno.test("RelevanceContext recomputes vectors from another space, never mixing them", async () => {
  const store = new MemoryContextStore();
  const stale = event(1, "my cat likes tuna", {
    vector: { fingerprint: "other-model:v1:3", vector: new Float32Array([1, 0, 0]) },
  });
  store.initial = { version: 1, events: [stale, event(2, "rain tomorrow")] };
  const embedder = createHashEmbedder({ dim: 64 });
  const { context } = await setup({ store, embedder });
  const scores = await context.scores("cat tuna");
  assert.equal(scores.length, 2);
  assert.ok(scores[0]! > scores[1]!);
  for (const e of context.events()) {
    assert.equal(e.vector?.fingerprint, embedder.fingerprint);
    assert.equal(e.vector?.vector.length, 64);
  }
});

Deno.test("textForVector takes the three branches and applies tool cleaners and noMemory", () => {
  const policy = (name: string) =>
    name === "secret_tool"
      ? { noMemory: true }
      : name === "qq_send"
      ? { cleaner: (s: string) => s.replace(/<tpl>.*?<\/tpl>/g, "") }
      : undefined;
  assert.equal(textForVector(event(1, "  hello\n\n world ")), "hello world");
  const agent: ContextEvent = {
    ...event(2, ""),
    role: "agent",
    input: "ignored",
    response: "Sent it.",
    tools: [
      { name: "qq_send", output: "<tpl>noise</tpl>delivered to Ann" },
      { name: "secret_tool", output: "password=1234" },
    ],
  };
  assert.equal(textForVector(agent, policy), "Sent it. delivered to Ann");
  const cold: ContextEvent = { ...event(3, "question"), role: "cold_storage", response: "answer" };
  assert.equal(textForVector(cold), "question answer");
});

Deno.test("RelevanceContext insert puts a recalled event back at its original time", async () => {
  const { context } = await setup();
  context.append(event(1, "a"));
  context.append(event(5, "b"));
  context.insert(event(3, "recalled", { role: "cold_storage" }));
  assert.deepEqual(context.events().map((e) => e.id), ["e1", "e3", "e5"]);
});
