import assert from "node:assert/strict";
import { ensureHome, openMemory, registerMemoryDefaults } from "../../../memory/mod.ts";
import { openTestRegistry } from "../../fakes/config.ts";
import { BLUE, RED, solidPng, tinyTextSpace, writeTinyImageEncoder } from "../../fixtures/media.ts";

Deno.test("openMemory pairs the image encoder with the text space and reembedStaleMedia writes back old blocks", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-media-" });
  const models = await Deno.makeTempDir({ prefix: "homeagent-models-" });
  using config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  const text = await tinyTextSpace(models);
  const open = async () =>
    openMemory({
      paths: await ensureHome(home),
      config: config.registry,
      clock: config.clock,
      logger: config.logger,
      embedder: text,
    });
  try {
    const first = await open();
    const red = await first.media.put(solidPng(RED));
    const blue = await first.media.put(solidPng(BLUE));
    const before = first.stats().media;
    assert.equal(before.stale, 2);
    assert.match(before.unsupported ?? "", /cannot embed images/);
    await first.close();

    config.registry.set(
      "core.agent.embedding_onnx_image_model",
      await writeTinyImageEncoder(models),
    );
    const second = await open();
    try {
      assert.deepEqual(second.embedder.modalities, ["text", "image"]);
      await second.reembedInBackground();
      const after = second.stats().media;
      assert.equal(after.stale, 0);
      assert.equal(after.imageSpace, second.embedder.fingerprint);
      assert.equal((await second.media.info(red.digest))?.vecModel, second.embedder.fingerprint);
      assert.equal((await second.media.find({ text: "blue" }))[0]?.block.digest, blue.digest);
      assert.ok(second.tools().every((t) => !t.name.startsWith("media_")), "the Agent offers them");
    } finally {
      await second.close();
    }
  } finally {
    await text.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(models, { recursive: true });
  }
});

Deno.test("openMemory with media off stores nothing and reports it off", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-media-" });
  using config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  config.registry.set("core.memory.media.enabled", false);
  const memory = await openMemory({
    paths: await ensureHome(home),
    config: config.registry,
    clock: config.clock,
    logger: config.logger,
  });
  try {
    assert.equal(memory.media.enabled, false);
    await assert.rejects(memory.media.put(solidPng(RED)), /Media memory is off/);
    assert.equal(memory.stats().media.enabled, false);
    await memory.reembedInBackground();
  } finally {
    await memory.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("memory_purge takes the media of the sentences it erases and leaves other media alone", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-media-" });
  using config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  const memory = await openMemory({
    paths: await ensureHome(home),
    config: config.registry,
    clock: config.clock,
    logger: config.logger,
  });
  try {
    const cat = await memory.media.put(solidPng(RED));
    await memory.media.link(cat.digest, { sentence: "Mimi is my cat", turnId: "t1" });
    await memory.graph.graph.commit([{
      subject: "Mimi",
      predicate: "is_a",
      object: "cat",
      sentence: "Mimi is my cat",
      turnIds: ["t1"],
    }]);
    const sky = await memory.media.put(solidPng(BLUE));
    await memory.media.link(sky.digest, { sentence: "look at the sky", turnId: "t2" });
    const purge = memory.tools().find((t) => t.name === "memory_purge")!;
    await purge.handler({ name: "Mimi" }, {
      signal: new AbortController().signal,
      turnId: "t3",
      callId: "c",
    });
    assert.equal(await memory.media.info(cat.digest), undefined);
    await assert.rejects(
      Deno.stat(`${home}/memory/media/blobs/${cat.digest.slice(0, 2)}/${cat.digest.slice(2)}`),
      Deno.errors.NotFound,
    );
    assert.deepEqual((await memory.media.info(sky.digest))?.sentences, ["look at the sky"]);
    assert.deepEqual([...(await memory.media.get(sky.digest)).bytes], [...solidPng(BLUE)]);
  } finally {
    await memory.close();
    await Deno.remove(home, { recursive: true });
  }
});
