import assert from "node:assert/strict";
import { join } from "node:path";
import { EmbeddingError, silentLogger } from "../../../core/mod.ts";
import { createTextAnalyzer, loadStaticEmbedder } from "../../../memory/mod.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { best, fastTextVec, numberbatchVec, withTempDir } from "./_vectors.ts";

const isEmbeddingError = (kind: string) => (e: unknown) =>
  e instanceof EmbeddingError && e.kind === kind && e.provider === "static";

Deno.test("Static embedder ranks related Chinese and English sentences from a .vec file", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "tiny.vec");
    await Deno.writeTextFile(path, fastTextVec());
    const embedder = await loadStaticEmbedder({ sources: path, logger: silentLogger });
    assert.equal(embedder.fingerprint, "static/tiny:v1:6");
    assert.equal(embedder.dim, 6);
    assert.equal(embedder.vocabularySize, 16);
    const embed = (t: string[]) => embedder.embed(t);
    const zh = await best(embed, "我喜欢吃苹果", ["今天下雨了", "苹果很好吃", "我喜欢看电影"]);
    assert.equal(zh.winner, "苹果很好吃");
    const en = await best(embed, "I love eating apples", [
      "It is raining today",
      "Apples are delicious",
    ]);
    assert.equal(en.winner, "Apples are delicious");
  });
});

Deno.test("Static embedder reads Numberbatch keys and averages aligned models", async () => {
  await withTempDir(async (dir) => {
    const a = join(dir, "numberbatch-mini.txt");
    const b = join(dir, "cc.en.300.vec");
    await Deno.writeTextFile(a, numberbatchVec());
    await Deno.writeTextFile(b, "2 6\nApple 0 0 0 0 1 0\nbanana 1 0 0 0 0 0\n");
    const logger = new MemoryLogger();
    const embedder = await loadStaticEmbedder({ sources: `${a}, ${b}`, logger });
    assert.equal(embedder.fingerprint, "static/numberbatch-mini+cc.en.300:v1:6");
    assert.equal(logger.find("Loaded word vectors").length, 2);
    const [apple] = await embedder.embed(["apple"]);
    // mean of the unit vectors (1,0,0,.2,0,0)/|·| and (0,0,0,0,1,0), renormalised
    const n = Math.hypot(1, 0.2);
    const mean = [1 / n, 0, 0, 0.2 / n, 1, 0];
    const norm = Math.hypot(...mean);
    mean.forEach((x, i) => assert.ok(Math.abs(apple![i]! - x / norm) < 1e-5));
    assert.ok(embedder.coverage("banana").known.includes("banana"));
  });
});

Deno.test("Static embedder falls back to characters and reports out-of-vocabulary words", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "tiny.vec.gz");
    const gz = new Blob([fastTextVec()]).stream().pipeThrough(new CompressionStream("gzip"));
    await Deno.writeFile(path, gz);
    const embedder = await loadStaticEmbedder({ sources: [path], logger: silentLogger });
    assert.equal(embedder.fingerprint, "static/tiny:v1:6");
    const report = embedder.coverage("水果 zebra 苹果");
    assert.deepEqual(report.known, ["果", "苹果"]);
    assert.deepEqual(report.oov, ["zebra"]);
    const [zero] = await embedder.embed(["zebra quokka"]);
    assert.ok(zero!.every((x) => x === 0));
  });
});

Deno.test("Static embedder weights words by the analyzer's learned IDF", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "tiny.vec");
    await Deno.writeTextFile(path, fastTextVec());
    const analyzer = await createTextAnalyzer();
    const embedder = await loadStaticEmbedder({ sources: path, logger: silentLogger, analyzer });
    const [plain] = await embedder.embed(["苹果 下雨"]);
    for (let i = 0; i < 30; i++) analyzer.learn(`下雨 ${i}`);
    const [weighted] = await embedder.embed(["苹果 下雨"]);
    assert.ok(Math.abs(plain![0]! - plain![1]!) < 0.05); // food and weather equal at first
    assert.ok(weighted![0]! > weighted![1]!); // the corpus-wide word weighs less
  });
});

Deno.test("Static embedder reports a missing layer explicitly", async () => {
  await assert.rejects(
    loadStaticEmbedder({ sources: "", logger: silentLogger }),
    isEmbeddingError("unavailable"),
  );
  await assert.rejects(
    loadStaticEmbedder({ sources: "/nonexistent/cc.zh.300.vec", logger: silentLogger }),
    (e: unknown) => isEmbeddingError("unavailable")(e) && /cc\.zh\.300\.vec/.test(String(e)),
  );
  await assert.rejects(
    loadStaticEmbedder({ sources: "http://127.0.0.1:9/x.vec", logger: silentLogger }),
    isEmbeddingError("unavailable"),
  );
});

Deno.test("Static embedder refuses unaligned models and files without vectors", async () => {
  await withTempDir(async (dir) => {
    const a = join(dir, "a.vec"), b = join(dir, "b.vec"), empty = join(dir, "empty.vec");
    await Deno.writeTextFile(a, fastTextVec());
    await Deno.writeTextFile(b, "1 3\napple 1 2 3\n");
    await Deno.writeTextFile(empty, "0 300\n");
    await assert.rejects(
      loadStaticEmbedder({ sources: [a, b], logger: silentLogger }),
      (e: unknown) => isEmbeddingError("failed")(e) && /dimension 3/.test(String(e)),
    );
    await assert.rejects(
      loadStaticEmbedder({ sources: [empty], logger: silentLogger }),
      isEmbeddingError("failed"),
    );
  });
});
