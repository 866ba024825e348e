import assert from "node:assert/strict";
import { join } from "node:path";
import { type ContextEvent, type ContextRecord, replayContext } from "../../../core/mod.ts";
import { decodeVector, encodeVector, JsonContextStore } from "../../../memory/mod.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { cliEvent } from "../../fakes/context.ts";

async function withTempDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-ctx-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("JsonContextStore round-trips events with exact vectors", async () => {
  await withTempDir(async (dir) => {
    const store = new JsonContextStore({
      path: join(dir, "context.json"),
      logger: new MemoryLogger(),
    });
    assert.deepEqual(await store.load(), { snapshot: undefined, journal: [] });
    const vector = new Float32Array([0.1, -0.25, 3.5e-8, 1]);
    await store.save({
      version: 1,
      events: [{
        id: "a",
        role: "user",
        source: "cli",
        channel: "cli",
        input: "你好",
        timestamp: 1,
        turnIds: ["t1"],
        vector: { fingerprint: "hash-ngram:v1:4", vector },
      }],
    });
    const loaded = (await store.load()).snapshot;
    assert.equal(loaded?.events[0]?.input, "你好");
    assert.deepEqual([...loaded!.events[0]!.vector!.vector], [...vector]);
    assert.deepEqual([...decodeVector(encodeVector(vector))], [...vector]);
  });
});

/** How encodeVector wrote vectors before it was native: files written so must read the same. */
function binaryStringBase64(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

Deno.test("encodeVector writes the same base64 as before, for views into a larger buffer too", () => {
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (const dim of [0, 1, 3, 4, 384, 512, 1024, 9000]) {
    const backing = new Float32Array(dim + 5).map(() =>
      (random() - 0.5) * 2 ** (random() * 40 - 20)
    );
    backing[1] = -0; // the sign bit survives
    backing[2] = NaN;
    for (const vector of [backing.subarray(0, dim), backing.subarray(3, 3 + dim)]) {
      const encoded = encodeVector(vector);
      assert.equal(encoded, binaryStringBase64(vector));
      assert.deepEqual(
        new Uint8Array(decodeVector(encoded).buffer),
        new Uint8Array(vector.slice().buffer),
      );
    }
  }
});

Deno.test("JsonContextStore moves a corrupt file aside and reports it", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "context.json");
    await Deno.writeTextFile(path, '{"version":1,"events":[{"id":');
    const logger = new MemoryLogger();
    const store = new JsonContextStore({ path, logger });
    assert.equal((await store.load()).snapshot, undefined);
    const names = [...Deno.readDirSync(dir)].map((e) => e.name);
    assert.equal(names.length, 1);
    assert.match(names[0]!, /^context\.json\.corrupt-/);
    const line =
      logger.find("The context window file is corrupt; moved it aside and started empty")[0];
    assert.ok(line);
    assert.match(String(line.fields.movedTo), /context\.json\.corrupt-/);
  });
});

Deno.test("JsonContextStore: a writer killed mid-write leaves the old or the new file", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "context.json");
    const module = new URL("../../../memory/mod.ts", import.meta.url).href;
    // A child that rewrites the file as fast as it can, each version a bigger event list.
    const script = `
      import { JsonContextStore } from ${JSON.stringify(module)};
      const store = new JsonContextStore({ path: ${JSON.stringify(path)}, logger: console });
      for (let n = 1; ; n++) {
        const events = Array.from({ length: n % 200 + 1 }, (_, i) => ({
          id: "e" + i, role: "user", source: "cli", channel: "cli",
          input: "x".repeat(500) + n, timestamp: n,
        }));
        await store.save({ version: 1, events });
        if (n === 3) console.log("writing");
      }`;
    for (let round = 0; round < 5; round++) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["eval", script],
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const reader = child.stdout.getReader();
      await reader.read();
      reader.releaseLock();
      await new Promise((r) => setTimeout(r, 20 + round * 17));
      child.kill("SIGKILL");
      await child.stdout.cancel();
      await child.status;
      const store = new JsonContextStore({ path, logger: new MemoryLogger() });
      const loaded = (await store.load()).snapshot;
      assert.ok(loaded, "the file parses after a kill");
      const n = loaded.events[0]!.timestamp;
      assert.equal(loaded.events.length, n % 200 + 1, "a whole version, not a mix");
    }
  });
});

function userEvent(i: number, text = `message ${i}`): ContextEvent {
  return cliEvent(i, { input: text, turnIds: [`t${i}`], timestamp: 1000 + i });
}

const add = (seq: number, event: ContextEvent): ContextRecord => ({ seq, op: "add", event });

Deno.test("JsonContextStore journal: appended records come back in order, after the snapshot", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "context.json");
    const store = new JsonContextStore({ path, logger: new MemoryLogger() });
    await store.save({ version: 1, seq: 1, events: [userEvent(1)] });
    await store.append([add(2, userEvent(2, "第二条")), { seq: 3, op: "archive", ids: ["e1"] }]);
    await store.append([{ seq: 4, op: "remove", ids: ["e1"] }]);
    const text = await Deno.readTextFile(join(dir, "context.journal"));
    assert.equal(text.split("\n").length, 4, "one line per record, each ended");
    const loaded = await new JsonContextStore({ path, logger: new MemoryLogger() }).load();
    assert.equal(loaded.snapshot?.seq, 1);
    assert.deepEqual(loaded.journal.map((r) => [r.seq, r.op]), [
      [2, "add"],
      [3, "archive"],
      [4, "remove"],
    ]);
    assert.deepEqual(replayContext(loaded).events.map((e) => e.input), ["第二条"]);
  });
});

Deno.test("JsonContextStore journal: a torn last line is logged, skipped and cut off", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "context.json");
    const journal = join(dir, "context.journal");
    await new JsonContextStore({ path, logger: new MemoryLogger() }).append([
      add(1, userEvent(1)),
      add(2, userEvent(2)),
    ]);
    const whole = await Deno.readFile(journal);
    const line = JSON.stringify({ seq: 3, op: "add", event: userEvent(3, "被截断的消息") });
    const torn = new TextEncoder().encode(line).subarray(0, 40); // cut inside a UTF-8 char too
    await Deno.writeFile(journal, torn, { append: true });
    const logger = new MemoryLogger();
    const store = new JsonContextStore({ path, logger });
    const loaded = await store.load();
    assert.deepEqual(loaded.journal.map((r) => r.seq), [1, 2]);
    const warned = logger.find(
      "The context journal ends in a torn line (a write cut short); skipped it",
    );
    assert.equal(warned.length, 1);
    assert.equal(warned[0]!.fields.bytes, 40);
    assert.deepEqual(await Deno.readFile(journal), whole, "the torn bytes are gone");
    await store.append([add(3, userEvent(3))]);
    const again = await new JsonContextStore({ path, logger: new MemoryLogger() }).load();
    assert.deepEqual(again.journal.map((r) => r.seq), [1, 2, 3], "the next record starts clean");
  });
});

Deno.test("JsonContextStore journal: a whole last record without its newline is kept", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "context.json");
    const journal = join(dir, "context.journal");
    await Deno.writeTextFile(journal, JSON.stringify({ seq: 1, op: "add", event: userEvent(1) }));
    const store = new JsonContextStore({ path, logger: new MemoryLogger() });
    assert.deepEqual((await store.load()).journal.map((r) => r.seq), [1]);
    await store.append([add(2, userEvent(2))]);
    const again = await new JsonContextStore({ path, logger: new MemoryLogger() }).load();
    assert.deepEqual(again.journal.map((r) => r.seq), [1, 2]);
  });
});

Deno.test("JsonContextStore journal: a damaged line inside is reported, copied aside and skipped", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "context.json");
    const journal = join(dir, "context.journal");
    const good = (seq: number) => JSON.stringify({ seq, op: "add", event: userEvent(seq) });
    await Deno.writeTextFile(journal, [good(1), '{"seq":2,"op":"add","ev', good(3), ""].join("\n"));
    const logger = new MemoryLogger();
    const loaded = await new JsonContextStore({ path, logger }).load();
    assert.deepEqual(loaded.journal.map((r) => r.seq), [1, 3]);
    const line = logger.find("The context journal has damaged lines; skipped them and kept a copy");
    assert.deepEqual(line[0]?.fields.lines, [2]);
    const names = [...Deno.readDirSync(dir)].map((e) => e.name);
    assert.ok(names.some((n) => n.startsWith("context.journal.corrupt-")), names.join());
  });
});

Deno.test("JsonContextStore save compacts: the journal is emptied, and a journal left by a crash before that is skipped by seq", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "context.json");
    const journal = join(dir, "context.journal");
    const store = new JsonContextStore({ path, logger: new MemoryLogger() });
    await store.append([add(1, userEvent(1)), add(2, userEvent(2))]);
    const before = await Deno.readFile(journal);
    await store.save({ version: 1, seq: 2, events: [userEvent(1), userEvent(2)] });
    assert.equal((await Deno.stat(journal)).size, 0);
    // A crash between the snapshot's rename and the truncate: the old lines are still there.
    await Deno.writeFile(journal, before);
    await store.append([{ seq: 3, op: "remove", ids: ["e1"] }]);
    const loaded = await new JsonContextStore({ path, logger: new MemoryLogger() }).load();
    assert.deepEqual(replayContext(loaded).events.map((e) => e.id), ["e2"]);
    assert.equal(replayContext(loaded).seq, 3);
  });
});

Deno.test("JsonContextStore.read reports the window without repairing the files", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "context.json");
    const journal = join(dir, "context.journal");
    await Deno.writeTextFile(
      journal,
      JSON.stringify({ seq: 1, op: "add", event: userEvent(1) }) + '\n{"se',
    );
    const bytes = await Deno.readFile(journal);
    const read = await new JsonContextStore({ path, logger: new MemoryLogger() }).read();
    assert.deepEqual(read.journal.map((r) => r.seq), [1]);
    assert.deepEqual(await Deno.readFile(journal), bytes);
  });
});

Deno.test("Context window: a kill between the document write and the prune record leaves each event in one place", async () => {
  await withTempDir(async (dir) => {
    const memory = new URL("../../../memory/mod.ts", import.meta.url).href;
    const core = new URL("../../../core/mod.ts", import.meta.url).href;
    const embedder = new URL("../../../memory/embed/hash.ts", import.meta.url).href;
    const keywords = new URL("../../../memory/text/keywords.ts", import.meta.url).href;
    const docStore = new URL("../../../memory/docs/store.ts", import.meta.url).href;
    // Wired as memory/open.ts wires them, except that the process is killed as soon as the
    // archive's documents are durable, before the prune returns.
    const open = (archive: string) => `
      import { JsonContextStore } from ${JSON.stringify(memory)};
      import { eventsToDocuments, RelevanceContext, silentLogger as logger } from ${
      JSON.stringify(core)
    };
      import { createHashEmbedder } from ${JSON.stringify(embedder)};
      import { createTextAnalyzer } from ${JSON.stringify(keywords)};
      import { DocStore } from ${JSON.stringify(docStore)};
      const clock = { now: () => Date.now(), setTimer: (ms, fn) => {
        const id = setTimeout(fn, ms); return { cancel: () => clearTimeout(id) }; } };
      const embedder = createHashEmbedder({ dim: 64 });
      const documents = await DocStore.open({ dir: ${JSON.stringify(join(dir, "docs"))},
        embedder, analyzer: await createTextAnalyzer(), clock, logger });
      const context = await RelevanceContext.load({ clock, logger, embedder, topK: () => 0,
        store: new JsonContextStore({ path: ${JSON.stringify(join(dir, "context.json"))}, logger }),
        archive: async (events) => { ${archive} } });`;
    const script = open(`
        await documents.insertMany(eventsToDocuments(events));
        console.log("archived");
        await new Promise(() => {});`) + `
      for (let i = 0; i < 12; i++) context.append({ id: "e" + i, role: "user", source: "web",
        channel: "web", input: "topic " + i, turnIds: ["t" + i], timestamp: 1000 + i });
      await context.flush();
      await context.prune("topic");`;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", script],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assert.equal((await reader.read()).value?.trim(), "archived");
    child.kill("SIGKILL");
    await reader.cancel();
    await child.status;

    const check = open(`await documents.insertMany(eventsToDocuments(events));`) + `
      const inContext = context.events().flatMap((e) => e.turnIds);
      const inDocs = (await documents.query("topic", { k: 50 })).flatMap((h) => h.document.turnIds);
      await context.flush();
      documents.close();
      console.log(JSON.stringify({ inContext, inDocs }));`;
    const out = await new Deno.Command(Deno.execPath(), { args: ["eval", check] }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const { inContext, inDocs } = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      inContext: string[];
      inDocs: string[];
    };
    assert.equal(inDocs.length, 2, "two events were archived");
    assert.deepEqual(inContext.filter((t) => inDocs.includes(t)), [], "none also in the window");
    assert.equal(new Set([...inContext, ...inDocs]).size, 12, "none lost");
    assert.equal(inContext.length + inDocs.length, 12, "none doubled");
  });
});
