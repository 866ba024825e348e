import assert from "node:assert/strict";
import { join } from "node:path";
import { Cap, type OutputMessage } from "../../../core/mod.ts";
import { createTestKernel } from "../../fakes/kernel.ts";
import { openTestMedia } from "../../fakes/media.ts";
import { reply, startFakeOpenAI } from "../../fixtures/fake_llm.ts";
import { RED, solidPng } from "../../fixtures/media.ts";

Deno.test("A turn sends the input's image to a vision source as an OpenAI image_url part and links its block", async () => {
  await using media = await openTestMedia();
  await using server = startFakeOpenAI();
  server.enqueue(reply.text("A red square."));
  await using kernel = createTestKernel({
    sources: [{ name: "v", server, vision: true }],
    media: media.tier,
  });
  const png = solidPng(RED);
  const ref = await media.tier.put(png);
  const answer = await kernel.agent.injectInputSync("test", "what is this?", { media: [ref] });
  assert.equal(answer.status, "ok");
  const user = server.requests[0]!.body.messages.at(-1)!;
  assert.deepEqual(user.content, [
    { type: "text", text: "what is this?" },
    {
      type: "image_url",
      image_url: { url: `data:image/png;base64,${btoa(String.fromCharCode(...png))}` },
    },
  ]);
  const block = await media.tier.info(ref.digest);
  assert.deepEqual(block?.sentences, ["what is this?"]);
  assert.deepEqual(block?.turnIds, [answer.inputId]);
});

Deno.test("A source without vision reads a plain note that an image arrived it cannot see", async () => {
  await using media = await openTestMedia();
  await using server = startFakeOpenAI();
  server.enqueue(reply.text("I cannot see images."));
  await using kernel = createTestKernel({ sources: [{ name: "t", server }], media: media.tier });
  const ref = await media.tier.put(solidPng(RED));
  await kernel.agent.injectInputSync("test", "look", { media: [ref] });
  const user = server.requests[0]!.body.messages.at(-1)!;
  assert.equal(typeof user.content, "string");
  assert.match(
    String(user.content),
    /^look\n\n\[An image \(image\/png\) arrived .*cannot see images/,
  );
});

Deno.test("A damaged image is a note to the model, never sent", async () => {
  await using media = await openTestMedia();
  await using server = startFakeOpenAI();
  server.enqueue(reply.text("ok"));
  await using kernel = createTestKernel({
    sources: [{ name: "v", server, vision: true }],
    media: media.tier,
  });
  const ref = await media.tier.put(solidPng(RED));
  const file = join(media.dir, "media", "blobs", ref.digest.slice(0, 2), ref.digest.slice(2));
  await Deno.writeFile(file, solidPng([1, 2, 3]));
  const answer = await kernel.agent.injectInputSync("test", "and this?", { media: [ref] });
  assert.equal(answer.status, "ok");
  const [system, user] = server.requests[0]!.body.messages;
  assert.equal(user!.content, "and this?");
  assert.match(String(system!.content), /could not be read: Media file ".*" is damaged/);
});

Deno.test("media_attach puts a stored image on the reply; a channel without images gets its link", async () => {
  await using media = await openTestMedia();
  await using server = startFakeOpenAI();
  const ref = await media.tier.put(solidPng(RED));
  server.enqueue(
    reply.toolCalls([{ name: "media_attach", arguments: { digest: ref.digest } }]),
    reply.text("Here it is."),
  );
  await using kernel = createTestKernel({ sources: [{ name: "v", server }], media: media.tier });
  const sent: OutputMessage[] = [];
  kernel.agent.outputs.register({
    name: "plain",
    plugin: "test",
    caps: Cap.text,
    description: "text only",
    handler: (m) => void sent.push(m),
  });
  kernel.agent.injectInput("test", "show me the red one", { channel: "plain" });
  await kernel.agent.whenIdle();
  await Promise.resolve();
  assert.equal(sent.length, 1);
  assert.equal(
    sent[0]!.payload,
    `Here it is.\n[image image/png ${ref.size} B sha256:${
      ref.digest.slice(0, 12)
    }: /api/v1/media/${ref.digest}]`,
  );
  const output = kernel.events.find((e) => e.type === "output");
  assert.deepEqual(output?.type === "output" ? output.media : undefined, [ref]);
});
