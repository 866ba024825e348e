import assert from "node:assert/strict";
import { type ContextEvent, eventsToDocuments, textForVector } from "../../../core/mod.ts";
import { createHashEmbedder } from "../../../memory/embed/hash.ts";
import { event, HOUR, MemoryContextStore, setup, T0 } from "./_relevance_support.ts";

const TOPICS = [
  "my cat Mimi likes tuna and sleeps on the sofa",
  "the stock market fell sharply today",
  "how do I fix a flat bicycle tyre",
  "the weather forecast says rain tomorrow",
];

Deno.test("RelevanceContext prune keeps the newest 10 and the topK most relevant, archiving the rest", async () => {
  const { context, archived } = await setup({ topK: () => 4 });
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

/** Turn `i` as the kernel records it: the input, then the reply (one exchange). */
function exchange(i: number, input: string, response: string): ContextEvent[] {
  const at = T0 + i * HOUR;
  const base = { source: "cli", channel: "cli", turnIds: [`t${i}`] };
  return [
    { ...base, id: `t${i}:in`, role: "user", input, timestamp: at },
    { ...base, id: `t${i}:out`, role: "agent", response, timestamp: at + 1000 },
  ];
}

Deno.test("RelevanceContext prune keeps or archives an input and its reply together", async () => {
  const { context, archived } = await setup({ topK: () => 2 });
  const turns = [
    ["what shall I cook tonight?", "Tuna pasta: Mimi the cat will beg for the tuna."],
    ["how is the stock market?", "It fell sharply today."],
    ["any plans for the weekend?", "Rain tomorrow, so a museum."],
    ["is the cat food delivered?", "Yes, the tuna for Mimi came this morning."],
    ["how do I fix a flat tyre?", "Patch the tube and pump it up."],
  ];
  turns.forEach(([q, a], i) => exchange(i, q!, a!).forEach((e) => context.append(e)));
  for (let i = 5; i < 10; i++) {
    exchange(i, `recent question ${i}`, "ok").forEach((e) => context.append(e));
  }
  const result = await context.prune("what does Mimi the cat like, tuna?");
  assert.deepEqual(result, { kept: 14, archived: 6, dropped: 0 });
  const ids = context.events().map((e) => e.id);
  // The cat exchanges stay whole although only their replies mention tuna and Mimi.
  for (const id of ["t0:in", "t0:out", "t3:in", "t3:out"]) assert.ok(ids.includes(id), id);
  assert.deepEqual(archived[0]!.map((e) => e.id), [
    "t1:in",
    "t1:out",
    "t2:in",
    "t2:out",
    "t4:in",
    "t4:out",
  ]);
  const documents = eventsToDocuments(archived[0]!);
  assert.equal(documents.length, 3, "one document per exchange");
  assert.match(
    documents[0]!.content,
    /cli: how is the stock market\?\n.* you: It fell sharply today\./,
  );
  assert.deepEqual(documents[0]!.turnIds, ["t1"]);
});

Deno.test("RelevanceContext protects the newest 10 events on top of the topK most relevant exchanges", async () => {
  const { context } = await setup({ topK: () => 3 });
  for (let i = 0; i < 20; i++) {
    exchange(i, `question ${i} about ${TOPICS[i % 4]}`, `answer ${i}`).forEach((e) =>
      context.append(e)
    );
  }
  const result = await context.prune("my cat Mimi and her tuna");
  // The newest 10 events are five exchanges; three more exchanges are kept on relevance.
  assert.equal(result.kept, 10 + 3 * 2);
  const kept = new Set(context.events().map((e) => e.turnIds![0]));
  for (let i = 15; i < 20; i++) assert.ok(kept.has(`t${i}`), `recent t${i}`);
  for (const i of [4, 8, 12]) assert.ok(kept.has(`t${i}`), `relevant t${i}`);
  // At or under topK older exchanges nothing moves.
  assert.deepEqual(await context.prune("anything"), { kept: 16, archived: 0, dropped: 0 });
});

Deno.test("RelevanceContext never splits an exchange at the edge of the newest 10 events", async () => {
  const { context, archived } = await setup({ topK: () => 0 });
  for (let i = 0; i < 6; i++) exchange(i, `q${i}`, `a${i}`).forEach((e) => context.append(e));
  context.append(exchange(6, "q6", "a6")[0]!); // a turn under way: its reply is not there yet
  await context.prune("q6");
  // The newest 10 events reach back to t1's reply: t1 stays whole, only t0 goes.
  assert.deepEqual(archived.flat().map((e) => e.id), ["t0:in", "t0:out"]);
  assert.equal(context.events()[0]!.id, "t1:in");
});

Deno.test("RelevanceContext prune drops agentcli and terminal events instead of archiving", async () => {
  const { context, archived } = await setup({ topK: () => 0 });
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
  const { context } = await setup({ topK: () => 0, archive: () => gate });
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

Deno.test("textForVector takes the three branches, tool outputs with the agent's reply", () => {
  assert.equal(textForVector(event(1, "  hello\n\n world ")), "hello world");
  const agent: ContextEvent = {
    ...event(2, ""),
    role: "agent",
    input: "ignored",
    response: "Sent it.",
    tools: [{ name: "qq_send", output: "delivered to Ann" }],
  };
  assert.equal(textForVector(agent), "Sent it. delivered to Ann");
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
