import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { EmbeddingError } from "../../../core/mod.ts";
import { type DownloadProgress, downloadVerified } from "../../../memory/mod.ts";
import { withTempDir } from "./_vectors.ts";

const PAYLOAD = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 251);
const SHA = createHash("sha256").update(PAYLOAD).digest("hex");

/** How the file server misbehaves on a request (by its number, from 0). */
type Mode = "ok" | "cut" | "ignore-range" | "long" | "bad-bytes";

/** A file server on 127.0.0.1 that honours Range and misbehaves as told, logging each request. */
function serveFile(modes: (request: number) => Mode) {
  const requests: { range: string | null }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const mode = modes(requests.length);
    const range = req.headers.get("range");
    requests.push({ range });
    let body = PAYLOAD;
    if (mode === "long") body = new Uint8Array(PAYLOAD.length + 10);
    if (mode === "bad-bytes") body = PAYLOAD.map((b) => b ^ 1);
    const from = range && mode !== "ignore-range" ? Number(/bytes=(\d+)-/.exec(range)![1]) : 0;
    const part = body.subarray(from);
    const headers: Record<string, string> = { "content-length": String(part.length) };
    if (from > 0) headers["content-range"] = `bytes ${from}-${body.length - 1}/${body.length}`;
    const cut = mode === "cut" ? Math.floor(part.length / 3) : part.length;
    let at = 0;
    // Chunk by chunk as the connection takes them, so a cut comes after real bytes went out.
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at < cut) {
          controller.enqueue(part.slice(at, Math.min(cut, at + 16_384)));
          at += 16_384;
        } else if (mode === "cut") {
          controller.error(new Error("cut by the test"));
        } else controller.close();
      },
    });
    return new Response(stream, { status: from > 0 ? 206 : 200, headers });
  });
  return {
    requests,
    url: `http://127.0.0.1:${server.addr.port}/model.onnx`,
    close: () => server.shutdown(),
  };
}

async function withServer(
  modes: (request: number) => Mode,
  fn: (s: ReturnType<typeof serveFile>, dir: string) => Promise<void>,
) {
  const server = serveFile(modes);
  try {
    await withTempDir((dir) => fn(server, dir));
  } finally {
    await server.close();
  }
}

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("downloadVerified resumes a cut connection with a Range request and reports progress", async () => {
  await withServer((n) => n === 0 ? "cut" : "ok", async (server, dir) => {
    const dest = join(dir, "model.onnx");
    const progress: DownloadProgress[] = [];
    await downloadVerified({ url: server.url, size: PAYLOAD.length, sha256: SHA }, dest, {
      onProgress: (p) => progress.push(p),
    });
    assert.deepEqual(await Deno.readFile(dest), PAYLOAD);
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[0]!.range, null);
    const resumedAt = Number(/bytes=(\d+)-/.exec(server.requests[1]!.range ?? "")?.[1]);
    assert.ok(resumedAt > 0 && resumedAt < PAYLOAD.length, `resumed at ${resumedAt}`);
    assert.equal(progress.at(-1)!.bytes, PAYLOAD.length);
    assert.equal(progress.at(-1)!.resumedFrom, resumedAt);
    const bytes = progress.map((p) => p.bytes);
    assert.deepEqual(bytes, [...bytes].sort((a, b) => a - b));
    assert.equal(await exists(`${dest}.part`), false);
  });
});

Deno.test("downloadVerified continues a partial file an earlier run left", async () => {
  await withServer(() => "ok", async (server, dir) => {
    const dest = join(dir, "model.onnx");
    await Deno.writeFile(`${dest}.part`, PAYLOAD.subarray(0, 123_456));
    await downloadVerified({ url: server.url, size: PAYLOAD.length, sha256: SHA }, dest, {
      attempts: 1,
    });
    assert.deepEqual(await Deno.readFile(dest), PAYLOAD);
    assert.deepEqual(server.requests, [{ range: "bytes=123456-" }]);
  });
});

Deno.test("downloadVerified starts over when the server ignores Range", async () => {
  await withServer(() => "ignore-range", async (server, dir) => {
    const dest = join(dir, "model.onnx");
    await Deno.writeFile(`${dest}.part`, new Uint8Array(5_000).fill(9)); // not the payload's start
    await downloadVerified({ url: server.url, size: PAYLOAD.length, sha256: SHA }, dest);
    assert.deepEqual(await Deno.readFile(dest), PAYLOAD);
  });
});

Deno.test("downloadVerified refuses bytes with the wrong sha256 and deletes them", async () => {
  await withServer(() => "bad-bytes", async (server, dir) => {
    const dest = join(dir, "model.onnx");
    await assert.rejects(
      downloadVerified({ url: server.url, size: PAYLOAD.length, sha256: SHA }, dest),
      (e: unknown) => e instanceof EmbeddingError && /sha256 [0-9a-f]{64} differs/.test(e.message),
    );
    assert.equal(await exists(dest), false);
    assert.equal(await exists(`${dest}.part`), false);
  });
});

Deno.test("downloadVerified refuses a server that offers the wrong size, without retrying", async () => {
  await withServer(() => "long", async (server, dir) => {
    const dest = join(dir, "model.onnx");
    await assert.rejects(
      downloadVerified({ url: server.url, size: PAYLOAD.length, sha256: SHA }, dest),
      (e: unknown) =>
        e instanceof EmbeddingError &&
        e.message.includes(`offers ${PAYLOAD.length + 10} bytes, expected ${PAYLOAD.length}`),
    );
    assert.equal(server.requests.length, 1);
    assert.equal(await exists(dest), false);
    assert.equal(await exists(`${dest}.part`), false);
  });
});

Deno.test("downloadVerified gives up after its attempts and keeps the partial file to resume", async () => {
  await withServer(() => "cut", async (server, dir) => {
    const dest = join(dir, "model.onnx");
    await assert.rejects(
      downloadVerified({ url: server.url, size: PAYLOAD.length, sha256: SHA }, dest, {
        attempts: 2,
      }),
      (e: unknown) => e instanceof EmbeddingError && /run it again to resume/.test(e.message),
    );
    assert.equal(server.requests.length, 2);
    const kept = (await Deno.stat(`${dest}.part`)).size;
    assert.ok(kept > 0 && kept < PAYLOAD.length, `kept ${kept}`);
    assert.equal(await exists(dest), false);
  });
});
