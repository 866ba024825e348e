/**
 * Media over HTTP on a real server: uploads (hostile ones refused), verified downloads (a
 * damaged blob reported, not served), images in /api/v1/chat, and the official `openai` SDK
 * sending image_url parts with data: URLs that reach a fake vision source in OpenAI's format.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import OpenAI from "openai";
import { reply } from "../fixtures/fake_llm.ts";
import { RED, solidPng } from "../fixtures/media.ts";
import { openTestMedia } from "../fakes/media.ts";
import { toBase64 } from "../../core/mod.ts";
import { TOKEN } from "./_deps.ts";
import { serveAgent } from "./_agent_server.ts";

const auth = { authorization: `Bearer ${TOKEN}` };

Deno.test("POST /api/v1/media stores an upload by its sniffed type; GET serves it verified", async () => {
  await using media = await openTestMedia();
  await using s = serveAgent({ media: media.tier });
  const png = solidPng(RED);
  const up = await fetch(`${s.base}/api/v1/media`, {
    method: "POST",
    headers: { ...auth, "content-type": "image/jpeg" },
    body: png,
  });
  assert.equal(up.status, 201);
  const ref = await up.json();
  assert.equal(ref.mime, "image/png");
  const got = await fetch(`${s.base}${ref.url}`, { headers: auth });
  assert.equal(got.headers.get("content-type"), "image/png");
  assert.equal(got.headers.get("x-content-type-options"), "nosniff");
  assert.deepEqual(new Uint8Array(await got.arrayBuffer()), png);
  const form = new FormData();
  form.set("file", new File([png], "red.png"));
  const multipart = await fetch(`${s.base}/api/v1/media`, {
    method: "POST",
    headers: auth,
    body: form,
  });
  assert.equal((await multipart.json()).digest, ref.digest, "identical bytes, one block");
  const info = await (await fetch(`${s.base}${ref.url}/info`, { headers: auth })).json();
  assert.equal(info.size, png.length);

  const file = join(media.dir, "media", "blobs", ref.digest.slice(0, 2), ref.digest.slice(2));
  await Deno.writeFile(file, solidPng([0, 0, 0]));
  const damaged = await fetch(`${s.base}${ref.url}`, { headers: auth });
  assert.equal(damaged.status, 500);
  const body = await damaged.json();
  assert.equal(body.error.code, "media_corrupt");
  assert.match(body.error.message, /is damaged.*not served/);
});

Deno.test("POST /api/v1/media refuses SVG, non-images, bad digests and the unauthenticated", async () => {
  await using media = await openTestMedia();
  await using s = serveAgent({ media: media.tier });
  const post = (body: BodyInit, headers: Record<string, string> = auth) =>
    fetch(`${s.base}/api/v1/media`, { method: "POST", headers, body });
  const svg = await post(`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>`);
  assert.equal(svg.status, 415);
  assert.equal((await svg.json()).error.code, "media_type_refused");
  const text = await post("hello");
  assert.equal(text.status, 415);
  await text.body?.cancel();
  const anonymous = await post(solidPng(RED), {});
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
  const traversal = await fetch(`${s.base}/api/v1/media/..%2F..%2Fgraph.db`, { headers: auth });
  assert.equal(traversal.status, 400);
  assert.equal((await traversal.json()).error.code, "media_bad_digest");
  assert.equal(media.tier.status().blocks, 0);
});

Deno.test("POST /api/v1/chat with uploaded media sends the image to a vision source", async () => {
  await using media = await openTestMedia();
  await using s = serveAgent({ media: media.tier, vision: true });
  s.llm.enqueue(reply.text("Red."));
  const png = solidPng(RED);
  const ref = await media.tier.put(png);
  const res = await fetch(`${s.base}/api/v1/chat?wait=1`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ text: "", media: [ref.digest] }),
  });
  assert.equal((await res.json()).text, "Red.");
  const user = s.llm.requests[0]!.body.messages.at(-1)!;
  assert.deepEqual(user.content, [{
    type: "image_url",
    image_url: { url: `data:image/png;base64,${toBase64(png)}` },
  }]);
  const unknown = await fetch(`${s.base}/api/v1/chat`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ text: "x", media: ["0".repeat(64)] }),
  });
  assert.equal(unknown.status, 404);
  await unknown.body?.cancel();
});

Deno.test("openai SDK: image_url parts with data: URLs reach the vision source and memory", async () => {
  await using media = await openTestMedia();
  await using s = serveAgent({ media: media.tier, vision: true });
  s.llm.enqueue(reply.text("A red square."));
  const client = new OpenAI({ apiKey: TOKEN, baseURL: `${s.base}/v1`, maxRetries: 0 });
  const url = `data:image/png;base64,${toBase64(solidPng(RED))}`;
  const answer = await client.chat.completions.create({
    model: "homeagent",
    messages: [{
      role: "user",
      content: [{ type: "text", text: "What colour?" }, { type: "image_url", image_url: { url } }],
    }],
  });
  assert.equal(answer.choices[0]!.message.content, "A red square.");
  const user = s.llm.requests[0]!.body.messages.at(-1)!;
  assert.deepEqual(user.content, [
    { type: "text", text: "What colour?" },
    { type: "image_url", image_url: { url } },
  ]);
  assert.equal(media.tier.status().blocks, 1);

  await assert.rejects(
    client.chat.completions.create({
      model: "homeagent",
      messages: [{
        role: "user",
        content: [{ type: "image_url", image_url: { url: "http://169.254.169.254/latest" } }],
      }],
    }),
    (e: unknown) =>
      e instanceof OpenAI.BadRequestError && /does not fetch remote URLs/.test(e.message),
  );
});
