/**
 * Media through a real daemon: `chat --image FILE` stores the photo, the reply turn's request
 * to a fake vision source carries it as an OpenAI image_url part, status counts the block and
 * says why it has no vector (the default text-only space), and bad files fail clearly.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { runMain, startServe } from "../fakes/daemon.ts";
import { RED, solidPng } from "../fixtures/media.ts";
import { toBase64 } from "../../core/mod.ts";

Deno.test("chat --image sends a photo to a vision source and keeps it as a block", async () => {
  await using server = startFakeOpenAI({ fallback: reply.text("A red square.") });
  const home = await Deno.makeTempDir({ prefix: "homeagent-media-e2e-" });
  try {
    for (
      const [key, value] of [
        ["base_url", server.url],
        ["model", "fake-vision"],
        ["vision", "true"],
      ]
    ) {
      const set = await runMain([
        "config",
        "set",
        `core.llm.sources.main.${key}`,
        value!,
        "--home",
        home,
      ]);
      assert.equal(set.code, 0, set.stderr);
    }
    await using daemon = await startServe(home);
    const png = solidPng(RED);
    const photo = join(home, "red.png");
    await Deno.writeFile(photo, png);
    const chat = await runMain(["chat", "--home", home, "--image", photo, "what colour?"]);
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(chat.stdout, "A red square.\n");
    const user = server.requests[0]!.body.messages.at(-1)!;
    assert.deepEqual(user.content, [
      { type: "text", text: "what colour?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${toBase64(png)}` } },
    ]);

    const missing = await runMain(["chat", "--home", home, "--image", "nope.png", "hi"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Cannot read image ".*nope\.png"/);

    const status = JSON.parse((await runMain(["status", "--home", home])).stdout);
    assert.equal(status.memory.media.blocks, 1);
    assert.equal(status.memory.media.enabled, true);
    assert.match(status.memory.media.unsupported, /cannot embed images/);
    const blobs = join(home, "memory", "media", "blobs");
    assert.equal([...Deno.readDirSync(blobs)].length, 1);
    const stopped = await daemon.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
