import assert from "node:assert/strict";
import { join } from "node:path";
import { decodeVector, encodeVector, JsonContextStore } from "../../memory/mod.ts";
import { MemoryLogger } from "../fakes/logger.ts";

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
    assert.equal(await store.load(), undefined);
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
    const loaded = await store.load();
    assert.equal(loaded?.events[0]?.input, "你好");
    assert.deepEqual([...loaded!.events[0]!.vector!.vector], [...vector]);
    assert.deepEqual([...decodeVector(encodeVector(vector))], [...vector]);
  });
});

Deno.test("JsonContextStore moves a corrupt file aside and reports it", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "context.json");
    await Deno.writeTextFile(path, '{"version":1,"events":[{"id":');
    const logger = new MemoryLogger();
    const store = new JsonContextStore({ path, logger });
    assert.equal(await store.load(), undefined);
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
    const module = new URL("../../memory/mod.ts", import.meta.url).href;
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
      const loaded = await store.load();
      assert.ok(loaded, "the file parses after a kill");
      const n = loaded.events[0]!.timestamp;
      assert.equal(loaded.events.length, n % 200 + 1, "a whole version, not a mix");
    }
  });
});
