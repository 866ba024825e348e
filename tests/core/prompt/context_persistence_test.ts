import assert from "node:assert/strict";
import {
  type ContextEvent,
  type ContextRecord,
  replayContext,
  type StoredContext,
} from "../../../core/mod.ts";
import { event, MemoryContextStore, setup } from "./_relevance_support.ts";

const add = (seq: number, e: ContextEvent): ContextRecord => ({ seq, op: "add", event: e });

Deno.test("replayContext applies the journal after the snapshot and skips what it holds", () => {
  const stored: StoredContext = {
    snapshot: { version: 1, seq: 2, events: [event(1, "a"), event(2, "b")] },
    journal: [
      add(2, event(2, "b")), // the snapshot has it: a crash came before the journal was emptied
      add(3, event(3, "c")),
      { seq: 4, op: "remove", ids: ["e1"] },
      add(5, event(0, "recalled")),
      { seq: 6, op: "archive", ids: ["e2", "e3"] },
      { seq: 7, op: "remove", ids: ["e3"] },
      { seq: 8, op: "archive", ids: ["e9"] }, // an event no longer in the window
    ],
  };
  const replayed = replayContext(stored);
  assert.deepEqual(replayed.events.map((e) => e.id), ["e0", "e2"]);
  assert.deepEqual([...replayed.archiving], ["e2"]);
  assert.equal(replayed.seq, 8);
  assert.deepEqual(replayContext(structuredClone(stored)), replayed, "replay is deterministic");
});

Deno.test("RelevanceContext.commit writes every change so far in one journal append", async () => {
  const { context, store } = await setup();
  context.append(event(1, "a"));
  context.append(event(5, "b", { vector: { fingerprint: "x", vector: new Float32Array(4) } }));
  context.insert(event(3, "recalled", { role: "cold_storage" }));
  assert.equal(store.appends.length, 0, "nothing is written per event");
  await context.commit();
  assert.equal(store.appends.length, 1);
  assert.deepEqual(store.appends[0]!.map((r) => [r.seq, r.op]), [[1, "add"], [2, "add"], [
    3,
    "add",
  ]]);
  const second = store.appends[0]![1]!;
  assert.ok(second.op === "add" && second.event.vector === undefined, "no vectors in the journal");
  await context.commit();
  assert.equal(store.appends.length, 1, "nothing new, nothing written");
  const reloaded = await setup({ store });
  assert.deepEqual(reloaded.context.events().map((e) => e.id), ["e1", "e3", "e5"]);
});

Deno.test("RelevanceContext snapshot compacts the journal; numbering carries on after reload", async () => {
  const { context, clock, store } = await setup();
  for (let i = 0; i < 3; i++) context.append(event(i, `x ${i}`));
  await context.commit();
  await clock.tick(5000);
  await context.flush();
  assert.equal(store.saves.length, 1);
  assert.equal(store.saves[0]!.seq, 3);
  assert.equal(store.journal.length, 0, "the snapshot emptied the journal");
  context.append(event(3, "after the snapshot"));
  await context.commit();
  assert.deepEqual(store.journal.map((r) => r.seq), [4]);
  const reloaded = await setup({ store });
  assert.equal(reloaded.context.size(), 4);
  reloaded.context.append(event(4, "next"));
  await reloaded.context.commit();
  assert.deepEqual(store.journal.map((r) => r.seq), [4, 5]);
});

Deno.test("RelevanceContext journals a prune's archive before the archive is called", async () => {
  const store = new MemoryContextStore();
  const seen: string[][] = [];
  const { context } = await setup({
    store,
    topK: () => 0,
    archive: () => {
      seen.push(store.journal.map((r) => r.op));
      return Promise.resolve();
    },
  });
  for (let i = 0; i < 12; i++) context.append(event(i, `e ${i}`));
  await context.prune("e");
  assert.deepEqual(seen, [[...Array(12).fill("add"), "archive"]]);
  await context.commit();
  assert.equal(store.journal.at(-1)!.op, "remove");
});

/** Documents as DocStore keeps archived events: one per turn, equal content stored once. */
function fakeDocuments() {
  const docs = new Map<string, string[]>();
  return {
    docs,
    write(events: ContextEvent[]) {
      for (const e of events) if (!docs.has(e.id)) docs.set(e.id, [e.id]);
    },
  };
}

Deno.test("RelevanceContext: a crash between the document write and the prune record loses and doubles nothing", async () => {
  const store = new MemoryContextStore();
  const documents = fakeDocuments();
  const { context } = await setup({
    store,
    topK: () => 0,
    archive: (events) => {
      documents.write(events);
      return new Promise(() => {}); // the process dies here: the documents exist, nothing else
    },
  });
  for (let i = 0; i < 12; i++) context.append(event(i, `e ${i}`));
  await context.commit();
  void context.prune("e");
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(documents.docs.size, 2, "the documents were written");

  const archivedAgain: ContextEvent[][] = [];
  const restarted = await setup({
    store: store.restarted(),
    topK: () => 0,
    archive: (events) => {
      archivedAgain.push(events);
      documents.write(events);
      return Promise.resolve();
    },
  });
  assert.equal(archivedAgain.length, 1, "the interrupted archive is finished");
  const inDocs = [...documents.docs.values()].flat();
  const inContext = restarted.context.events().map((e) => e.id);
  assert.equal(inContext.length + inDocs.length, 12, "every event is somewhere");
  assert.deepEqual(inContext.filter((id) => inDocs.includes(id)), [], "none is in both");
  assert.equal(new Set(inDocs).size, inDocs.length, "no document twice");
});

Deno.test("RelevanceContext: a failed archive keeps the events and the next prune finishes it", async () => {
  const documents = fakeDocuments();
  let fail = true;
  const { context } = await setup({
    topK: () => 2,
    archive: (events) => {
      documents.write(events.slice(0, 1)); // some documents may be written before it fails
      if (fail) return Promise.reject(new Error("disk full"));
      documents.write(events);
      return Promise.resolve();
    },
  });
  const texts = ["my cat likes tuna", "the stock market", "the cat on the sofa", "a stock crash"];
  texts.forEach((text, i) => context.append(event(i, text)));
  for (let i = 4; i < 14; i++) context.append(event(i, `filler ${i}`));
  await assert.rejects(context.prune("cat"), /disk full/);
  assert.equal(context.size(), 14, "the window keeps them");
  assert.deepEqual([...documents.docs.keys()], ["e1"], "but one document was written");
  fail = false;
  context.append(event(14, "filler 14"));
  // The stock events would now stay on relevance; the archive begun for them goes through.
  await context.prune("stock market crash");
  const inDocs = [...documents.docs.values()].flat();
  const inContext = context.events().map((e) => e.id);
  assert.deepEqual(inContext.filter((id) => inDocs.includes(id)), [], "none in both places");
  assert.ok(inDocs.includes("e1") && inDocs.includes("e3"));
  assert.equal(inContext.length + inDocs.length, 15, "none lost, none twice");
});

Deno.test("RelevanceContext: a journal write that fails is retried by the next commit", async () => {
  const store = new MemoryContextStore();
  let fail = true;
  const append = store.append.bind(store);
  store.append = (records) => fail ? Promise.reject(new Error("EIO")) : append(records);
  const { context } = await setup({ store });
  context.append(event(1, "a"));
  await assert.rejects(context.commit(), /EIO/);
  fail = false;
  context.append(event(2, "b"));
  await context.commit();
  assert.deepEqual(store.journal.map((r) => r.seq), [1, 2]);
});
