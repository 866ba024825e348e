import assert from "node:assert/strict";
import { type Embedder, eventsToDocuments, type NewDocument } from "../../../core/mod.ts";
import { createHashEmbedder } from "../../../memory/embed/hash.ts";
import { createTextAnalyzer } from "../../../memory/text/keywords.ts";
import { DocStore } from "../../../memory/docs/store.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

const analyzer = await createTextAnalyzer();
const clock = new ManualClock(Date.UTC(2026, 5, 1));

async function tempDir(): Promise<string & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-docs-insert-" });
  return Object.assign(dir, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  }) as string & AsyncDisposable;
}

const open = (dir: string, embedder: Embedder = createHashEmbedder({ dim: 64 })) =>
  DocStore.open({ dir, embedder, analyzer, clock, logger: new MemoryLogger() });

const notes = (n: number): NewDocument[] =>
  Array.from(
    { length: n },
    (_, i) => ({ content: `Note ${i}: the heron ${i} fishes`, source: "t" }),
  );

const files = (dir: string) =>
  [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".json")).length;

Deno.test("DocStore insertMany is all or nothing: a failure in a later batch indexes nothing and leaves no file", async () => {
  await using dir = await tempDir();
  const inner = createHashEmbedder({ dim: 64 });
  let calls = 0;
  const failing: Embedder = {
    ...inner,
    fingerprint: inner.fingerprint,
    dim: inner.dim,
    embed: (texts, options) => {
      if (++calls === 2) return Promise.reject(new Error("embedding server went away"));
      return inner.embed(texts, options);
    },
  };
  const store = await open(`${dir}`, failing);
  try {
    await assert.rejects(store.insertMany(notes(5), { batch: 2 }), /embedding server went away/);
    assert.equal(store.size(), 0);
    assert.equal(files(`${dir}`), 0);
    assert.deepEqual(await store.query("heron", { k: 3 }), []);
    const again = await store.insertMany(notes(5), { batch: 2 });
    assert.equal(again.filter((r) => !r.duplicate).length, 5, "a retry stores them all");
  } finally {
    store.close();
  }
});

Deno.test("DocStore insertMany from two writers on one folder stores each content once, both succeed", async () => {
  await using dir = await tempDir();
  // Two stores on one folder are two processes' connections: each plans before the other commits.
  const a = await open(`${dir}`);
  const b = await open(`${dir}`);
  try {
    const [ra, rb] = await Promise.all([
      a.insertMany(notes(300), { sync: false }),
      b.insertMany(notes(300), { sync: false }),
    ]);
    const fresh = [...ra, ...rb].filter((r) => !r.duplicate);
    assert.equal(fresh.length, 300);
    assert.deepEqual(ra.map((r) => r.id), rb.map((r) => r.id), "both name the copy kept");
    assert.equal(files(`${dir}`), 300, "the loser's files are removed");
    assert.equal(a.size(), 300);
  } finally {
    a.close();
    b.close();
  }
  const reopened = await open(`${dir}`);
  try {
    assert.equal(reopened.size(), 300);
    assert.equal(
      (await reopened.query("heron 17", { k: 1 }))[0]?.document.content,
      "Note 17: the heron 17 fishes",
    );
  } finally {
    reopened.close();
  }
});

Deno.test("DocStore insertMany keeps a repeat within one call once and names the first", async () => {
  await using dir = await tempDir();
  const store = await open(`${dir}`);
  try {
    const [first, repeat, other] = await store.insertMany([
      { content: "same text", source: "t" },
      { content: "  same   text ", source: "t" },
      { content: "other text", source: "t" },
    ]);
    assert.equal(first!.duplicate, false);
    assert.deepEqual(repeat, { id: first!.id, duplicate: true });
    assert.equal(other!.duplicate, false);
    assert.equal(store.size(), 2);
  } finally {
    store.close();
  }
});

Deno.test("an archived exchange is embedded and indexed by what was said, not by its timeline stamps", async () => {
  await using dir = await tempDir();
  const inner = createHashEmbedder({ dim: 64 });
  const embedded: string[] = [];
  const recording: Embedder = {
    ...inner,
    fingerprint: inner.fingerprint,
    dim: inner.dim,
    embed: (texts, options) => (embedded.push(...texts), inner.embed(texts, options)),
  };
  const store = await open(`${dir}`, recording);
  const at = Date.UTC(2026, 10, 30, 9, 15);
  const docs = eventsToDocuments([
    {
      id: "u1",
      role: "user",
      source: "web",
      channel: "web",
      input: "Where is my umbrella?",
      timestamp: at,
    },
    {
      id: "a1",
      exchange: "u1",
      role: "agent",
      source: "web",
      channel: "web",
      response: "By the door.",
      timestamp: at,
    },
  ]);
  assert.match(docs[0]!.content, /^\[2026-11-30 09:15\] web: Where/); // the stored text keeps them
  await store.insertMany(docs);
  assert.deepEqual(embedded, ["Where is my umbrella?\nBy the door."]);
  // The stamp's digits and the channel's name are no words of the document.
  assert.equal((await store.query("2026 web", { minDense: 2 })).length, 0);
  assert.equal((await store.query("umbrella", { minDense: 2 })).length, 1);
  store.close();
});
