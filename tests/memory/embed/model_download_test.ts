import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { EmbeddingError } from "../../../core/mod.ts";
import { fetchModel, loadStaticEmbedder, parseModelSource } from "../../../memory/mod.ts";
import { startLoopbackServer } from "../../fixtures/fake_http.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { fastTextVec, withTempDir } from "./_vectors.ts";

const BODY = fastTextVec();
const SIZE = new TextEncoder().encode(BODY).length;
const SHA = createHash("sha256").update(BODY).digest("hex");

/** Serve BODY at /models/tiny.vec (404 elsewhere), counting requests. */
function serveModel() {
  const paths: string[] = [];
  const server = startLoopbackServer(async (exchange) => {
    paths.push(exchange.request.path);
    if (exchange.request.path !== "/models/tiny.vec") {
      await exchange.head(404);
      return await exchange.end();
    }
    await exchange.head(200, { "content-type": "text/plain" });
    for (let at = 0; at < BODY.length; at += 40) await exchange.write(BODY.slice(at, at + 40));
    await exchange.end();
  });
  return { server, paths, url: `http://127.0.0.1:${server.port}/models/tiny.vec` };
}

Deno.test("parseModelSource reads #sha256= and size= checks from an entry", () => {
  assert.deepEqual(parseModelSource(` https://h/a.vec#sha256=${"A".repeat(64)}&size=12 `), {
    location: "https://h/a.vec",
    sha256: "a".repeat(64),
    size: 12,
  });
  assert.deepEqual(parseModelSource("/data/cc.zh.300.vec"), { location: "/data/cc.zh.300.vec" });
  assert.throws(() => parseModelSource("https://h/a.vec#sha256=xyz"), TypeError);
});

Deno.test("fetchModel downloads a configured URL with progress, verifies it and reuses the copy", async () => {
  const { server, paths, url } = serveModel();
  try {
    await withTempDir(async (dir) => {
      const logger = new MemoryLogger();
      const source = parseModelSource(`${url}#sha256=${SHA}&size=${SIZE}`);
      const path = await fetchModel(source, { dir: join(dir, "models"), logger });
      assert.equal(path, join(dir, "models", "tiny.vec"));
      assert.equal(await Deno.readTextFile(path), BODY);
      assert.equal(logger.find("Downloading model").length, 1);
      const progress = logger.find("Download progress").map((l) => l.fields.percent as number);
      assert.ok(progress.length >= 5, `progress lines: ${progress}`);
      assert.equal(progress.at(-1), 100);
      assert.deepEqual(progress, [...progress].sort((a, b) => a - b));
      assert.equal(logger.find("Downloaded model")[0]!.fields.sha256, SHA);
      const again = await fetchModel(source, { dir: join(dir, "models"), logger });
      assert.equal(again, path);
      assert.equal(paths.length, 1);
      assert.equal(logger.find("Using cached model").length, 1);
    });
  } finally {
    await server.close();
  }
});

Deno.test("fetchModel refuses a checksum or size mismatch and leaves no file", async () => {
  const { server, url } = serveModel();
  try {
    await withTempDir(async (dir) => {
      const logger = new MemoryLogger();
      const models = join(dir, "models");
      await assert.rejects(
        fetchModel(parseModelSource(`${url}#sha256=${"0".repeat(64)}`), { dir: models, logger }),
        (e: unknown) =>
          e instanceof EmbeddingError && e.kind === "failed" && /sha256/.test(e.message),
      );
      await assert.rejects(
        fetchModel(parseModelSource(`${url}#size=${SIZE + 1}`), { dir: models, logger }),
        (e: unknown) => e instanceof EmbeddingError && /size/.test(e.message),
      );
      assert.deepEqual([...Deno.readDirSync(models)], []);
      await assert.rejects(
        fetchModel(parseModelSource(url.replace("tiny", "missing")), { dir: models, logger }),
        (e: unknown) => e instanceof EmbeddingError && /HTTP 404/.test(e.message),
      );
    });
  } finally {
    await server.close();
  }
});

Deno.test("Static embedder loads vectors from a configured URL into the model cache", async () => {
  const { server, url } = serveModel();
  try {
    await withTempDir(async (dir) => {
      const logger = new MemoryLogger();
      const embedder = await loadStaticEmbedder({
        sources: `${url}#sha256=${SHA}`,
        cacheDir: join(dir, "models"),
        logger,
      });
      assert.equal(embedder.fingerprint, "static/tiny:v1:6");
      assert.equal(logger.find("Downloaded model").length, 1);
      const [v] = await embedder.embed(["苹果"]);
      assert.ok(v![0]! > 0.9);
    });
  } finally {
    await server.close();
  }
});
