import assert from "node:assert/strict";
import { join } from "node:path";
import {
  MediaError,
  type MediaStore,
  ModalityUnsupportedError,
  silentLogger,
} from "../../../core/mod.ts";
import {
  createHashEmbedder,
  defaultMediaConfig,
  MediaTier,
  openDatabase,
  sha256Hex,
} from "../../../memory/mod.ts";
import { GRAPH_MIGRATIONS } from "../../../memory/graph/schema.ts";
import { encode as encodePng } from "fast-png";
import { BLUE, GREEN, RED, solidJpeg, solidPng, tinyClipSpace } from "../../fixtures/media.ts";
import type { Embedder } from "../../../core/mod.ts";

async function withTier(
  embedder: Embedder | ((dir: string) => Promise<Embedder & { close(): Promise<void> }>),
  fn: (tier: MediaTier, dir: string) => Promise<void>,
  limits: Partial<typeof defaultMediaConfig> = {},
) {
  const dir = await Deno.makeTempDir({ prefix: "media-" });
  const space = typeof embedder === "function" ? await embedder(dir) : embedder;
  const db = openDatabase(join(dir, "graph.db"), { migrations: GRAPH_MIGRATIONS });
  try {
    const tier = new MediaTier({
      dir: join(dir, "media"),
      db,
      embedder: space,
      clock: { now: () => 1_700_000_000_000 },
      logger: silentLogger,
      limits: { ...defaultMediaConfig, ...limits },
      enabled: limits.enabled ?? true,
    });
    await fn(tier, dir);
  } finally {
    db.close();
    if ("close" in space && typeof space.close === "function") await space.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const hash = createHashEmbedder({ dim: 64 });

function noisyPng(width: number, height: number): Uint8Array {
  const data = crypto.getRandomValues(new Uint8Array(width * height * 4));
  return encodePng({ width, height, data, channels: 4 });
}

Deno.test("MediaTier stores identical bytes once under blobs/<first2>/<rest> and verifies them", async () => {
  await withTier(hash, async (tier, dir) => {
    const png = solidPng(RED);
    const a = await tier.put(png, { declaredMime: "image/gif" });
    const b = await tier.put(png.slice());
    assert.deepEqual(a, b);
    assert.equal(a.digest, await sha256Hex(png));
    assert.equal(a.mime, "image/png", "the bytes decide the type, not the sender");
    const file = join(dir, "media", "blobs", a.digest.slice(0, 2), a.digest.slice(2));
    assert.deepEqual(await Deno.readFile(file), png);
    const got = await tier.get(a.digest);
    assert.deepEqual(got.bytes, png);
    assert.equal(tier.status().blocks, 1);
    assert.equal(tier.status().bytes, png.length);
    const entries = [...Deno.readDirSync(join(dir, "media", "blobs", a.digest.slice(0, 2)))];
    assert.deepEqual(entries.map((e) => e.name), [a.digest.slice(2)], "no temporary file left");
  });
});

Deno.test("MediaTier reports a damaged blob by name and never returns its bytes", async () => {
  await withTier(hash, async (tier, dir) => {
    const ref = await tier.put(solidPng(GREEN));
    const file = join(dir, "media", "blobs", ref.digest.slice(0, 2), ref.digest.slice(2));
    const bytes = await Deno.readFile(file);
    bytes[bytes.length - 5]! ^= 0xff;
    await Deno.writeFile(file, bytes);
    await assert.rejects(
      tier.get(ref.digest),
      (e: unknown) =>
        e instanceof MediaError && e.failure === "corrupt" && e.message.includes(file),
    );
  });
});

Deno.test("MediaTier refuses bad digests, oversize, non-images, SVG and pixel bombs", async () => {
  await withTier(hash, async (tier) => {
    const failure = (f: string) => (e: unknown) => e instanceof MediaError && e.failure === f;
    for (const bad of ["../../etc/passwd", "A".repeat(64), "ab", "0".repeat(63) + "/"]) {
      await assert.rejects(tier.get(bad), failure("bad_digest"));
    }
    await assert.rejects(tier.put(new Uint8Array(1000).fill(1)), failure("type_refused"));
    const svg = new TextEncoder().encode(
      `<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><script>x</script></svg>`,
    );
    await assert.rejects(tier.put(svg, { declaredMime: "image/png" }), failure("type_refused"));
    await assert.rejects(tier.put(noisyPng(40, 40)), failure("too_large"));
    await assert.rejects(tier.put(solidJpeg(RED, 60, 40)), failure("too_many_pixels"));
    assert.equal(tier.status().blocks, 0);
  }, { maxBytes: 2048, maxPixels: 2000 });
});

Deno.test("MediaTier off refuses every call with media_disabled", async () => {
  await withTier(hash, async (tier) => {
    await assert.rejects(
      tier.put(solidPng(RED)),
      (e: unknown) => e instanceof MediaError && e.code === "media_disabled",
    );
    assert.equal(tier.status().enabled, false);
  }, { enabled: false });
});

Deno.test("MediaTier in a text-only space stores and links, and find says ModalityUnsupported", async () => {
  await withTier(hash, async (tier) => {
    const ref = await tier.put(solidPng(BLUE));
    await tier.link(ref.digest, { sentence: "look at my blue door", turnId: "t1" });
    const block = await tier.info(ref.digest);
    assert.equal(block?.vecModel, "");
    assert.deepEqual(block?.sentences, ["look at my blue door"]);
    assert.deepEqual(block?.turnIds, ["t1"]);
    await assert.rejects(tier.find({ text: "blue" }), ModalityUnsupportedError);
    await assert.rejects(tier.reembedStale(), ModalityUnsupportedError);
    const status = tier.status();
    assert.match(status.unsupported ?? "", /cannot embed images/);
    assert.equal(status.stale, 1);
    assert.equal(await tier.delete(ref.digest), true);
    await assert.rejects(
      tier.get(ref.digest),
      (e: unknown) => e instanceof MediaError && e.failure === "not_found",
    );
  });
});

Deno.test("MediaTier in a unified space: a text query finds the image, and by example too", async () => {
  await withTier(tinyClipSpace, async (tier: MediaStore & MediaTier) => {
    const red = await tier.put(solidPng(RED));
    const blue = await tier.put(solidJpeg(BLUE));
    const green = await tier.put(solidPng(GREEN, 20, 10));
    const space = tier.status().imageSpace!;
    assert.match(
      space,
      /^onnx\/tiny-text@[0-9a-f]{12}\+onnx-image\/tiny-vision@[0-9a-f]{12}:v1:3$/,
    );
    assert.equal((await tier.info(red.digest))?.vecModel, space);
    const [top] = await tier.find({ text: "a blue photo" });
    assert.equal(top?.block.digest, blue.digest);
    assert.equal((await tier.find({ text: "红" }))[0]?.block.digest, red.digest);
    const like = await tier.find({ like: green.digest, limit: 2 });
    assert.equal(like.length, 2);
    assert.ok(!like.some((h) => h.block.digest === green.digest));
    assert.equal(tier.status().stale, 0);
  });
});

Deno.test("MediaTier refuses a PNG whose data inflates past the size its header declares", async () => {
  const { decodeImage } = await import("../../../memory/image/decode.ts");
  const { zlibSync } = await import("fflate");
  // A 100×100 header whose IDAT holds 4 MB of zeros: a tiny file, a huge inflation.
  const png = solidPng(RED, 100, 100);
  const idat = zlibSync(new Uint8Array(4_000_000), { level: 9 });
  const out = replaceIdat(png, idat);
  assert.ok(out.length < 20_000);
  assert.throws(
    () => decodeImage(out, 40_000_000),
    (e: unknown) => e instanceof MediaError && e.failure === "too_many_pixels",
  );
  assert.equal(decodeImage(png, 40_000_000).width, 100);
});

function replaceIdat(png: Uint8Array, data: Uint8Array): Uint8Array {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const parts: Uint8Array[] = [png.subarray(0, 8)];
  for (let at = 8; at < png.length;) {
    const length = view.getUint32(at);
    const type = new TextDecoder().decode(png.subarray(at + 4, at + 8));
    if (type === "IDAT") {
      const chunk = new Uint8Array(12 + data.length);
      new DataView(chunk.buffer).setUint32(0, data.length);
      chunk.set(png.subarray(at + 4, at + 8), 4);
      chunk.set(data, 8); // the CRC is left 0: the inflation check runs before any CRC check
      parts.push(chunk);
    } else parts.push(png.subarray(at, at + 12 + length));
    at += 12 + length;
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
