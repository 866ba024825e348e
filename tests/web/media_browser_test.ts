/**
 * The end-to-end case in Debian's chromium: a photo picked in the web chat is uploaded,
 * shown as a thumbnail, sent with the message; the reply turn's request to a fake vision
 * source carries it as an OpenAI image_url part; the block is in the graph with its sentence
 * edge and a vector of the tiny CLIP pair; a later text query (the model's media_find) finds
 * it; and once its blob is damaged the server reports it instead of serving it.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { toBase64 } from "../../core/mod.ts";
import { reply } from "../fixtures/fake_llm.ts";
import { RED, solidPng, tinyClipSpace } from "../fixtures/media.ts";
import { openTestMedia } from "../fakes/media.ts";
import { TOKEN } from "./_deps.ts";
import { serveAgent } from "./_agent_server.ts";
import { ARTIFACTS, launchChromium } from "./_browser.ts";

async function browserOf() {
  const browser = await launchChromium();
  return { browser, [Symbol.asyncDispose]: () => browser.close() };
}

Deno.test({
  name:
    "Web chat in chromium: a picked photo reaches a vision source, the graph and a later search",
  sanitizeResources: false, // chromium's pipes belong to playwright's own lifecycle
  sanitizeOps: false,
  async fn() {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const models = await Deno.makeTempDir({ prefix: "media-browser-" });
    const space = await tinyClipSpace(models);
    try {
      await using media = await openTestMedia({ embedder: space });
      await using s = serveAgent({ media: media.tier, vision: true });
      // Closed before the server: its open event stream would hold the shutdown.
      await using _browser = await browserOf();
      const browser = _browser.browser;
      const page = await browser.newPage({
        viewport: { width: 412, height: 860 },
        locale: "en-US",
      });
      await page.goto(`${s.base}/?token=${TOKEN}`);
      await page.locator("body[data-sse=open]").waitFor();

      const png = solidPng(RED, 32, 24);
      await page.locator("#attach-file").setInputFiles({
        name: "door.png",
        mimeType: "image/png",
        buffer: Buffer.from(png),
      });
      await page.locator(".attach .thumb img").waitFor();
      s.llm.enqueue(reply.text("A red door."));
      await page.locator("#text").fill("my red door");
      await page.locator("#send").click();
      await page.locator(".msg.agent.done", { hasText: "A red door." }).waitFor();
      await page.locator(".msg.user .thumb img").waitFor();
      const loaded = await page.locator(".msg.user .thumb img").evaluate((img) =>
        (img as unknown as { naturalWidth: number }).naturalWidth
      );
      assert.equal(loaded, 32, "the thumbnail is the stored image, served back");
      await page.screenshot({ path: `${ARTIFACTS}media-01-chat.png`, fullPage: true });

      const user = s.llm.requests[0]!.body.messages.at(-1)!;
      assert.deepEqual(user.content, [
        { type: "text", text: "my red door" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${toBase64(png)}` } },
      ]);
      const [hit] = await media.tier.find({ text: "red" });
      const block = hit!.block;
      assert.deepEqual(block.sentences, ["my red door"]);
      assert.equal(block.vecModel, space.fingerprint);
      const edges = media.tier.rows.db.prepare(
        "select src_kind, type, dst_kind from edges where dst_id = ?",
      ).all(block.id);
      assert.deepEqual(edges.map((e) => ({ ...e })), [
        { src_kind: "sentence", type: "contains", dst_kind: "block" },
      ]);

      // A later turn: the model searches by text and finds the photo.
      s.llm.enqueue(
        reply.toolCalls([{ name: "media_find", arguments: { text: "red" } }]),
        reply.text("Found it."),
      );
      await page.locator("#text").fill("find the photo of the door");
      await page.locator("#send").click();
      await page.locator(".msg.agent.done", { hasText: "Found it." }).waitFor();
      const toolResult = s.llm.requests[2]!.body.messages.at(-1)!;
      assert.equal(toolResult.role, "tool");
      assert.match(String(toolResult.content), new RegExp(`^${block.digest} image/png`));

      // A damaged blob is reported, never served.
      const file = join(
        media.dir,
        "media",
        "blobs",
        block.digest.slice(0, 2),
        block.digest.slice(2),
      );
      await Deno.writeFile(file, solidPng([0, 0, 255], 32, 24));
      const answer = await page.evaluate(async (url) => {
        const r = await fetch(url, { cache: "no-store" }); // the verified copy was cached
        return { status: r.status, body: await r.json() };
      }, `/api/v1/media/${block.digest}`);
      assert.equal(answer.status, 500);
      assert.equal(answer.body.error.code, "media_corrupt");
    } finally {
      await space.close();
      await Deno.remove(models, { recursive: true });
    }
  },
});
