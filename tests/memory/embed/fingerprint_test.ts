import assert from "node:assert/strict";
import { EmbeddingError } from "../../../core/mod.ts";
import {
  cosine,
  createHashEmbedder,
  formatFingerprint,
  hash32,
  parseFingerprint,
  sameSpace,
} from "../../../memory/mod.ts";
import { best } from "./_vectors.ts";

Deno.test("formatFingerprint and parseFingerprint round-trip model, version and dimension", () => {
  const fp = formatFingerprint({ model: "static/cc.zh.300", version: "v1", dim: 300 });
  assert.equal(fp, "static/cc.zh.300:v1:300");
  assert.deepEqual(parseFingerprint(fp), { model: "static/cc.zh.300", version: "v1", dim: 300 });
  assert.equal(
    formatFingerprint({ model: "http/a:b c", version: "v1", dim: 8 }),
    "http/a_b_c:v1:8",
  );
  assert.equal(parseFingerprint("nonsense"), undefined);
  assert.equal(parseFingerprint("a:v1:0"), undefined);
  assert.throws(() => formatFingerprint({ model: "m", version: "v1", dim: 0 }), RangeError);
});

Deno.test("sameSpace refuses vectors from another space", () => {
  const embedder = createHashEmbedder({ dim: 64 });
  const fp = embedder.fingerprint;
  assert.ok(sameSpace(fp, fp));
  assert.ok(!sameSpace(fp, createHashEmbedder({ dim: 128 }).fingerprint));
  assert.ok(!sameSpace(undefined, fp));
  assert.ok(!sameSpace("garbage", "garbage"));
});

Deno.test("cosine is 0 for a zero vector and refuses vectors of another length", () => {
  const a = Float32Array.from([1, 2, 3]);
  assert.equal(cosine(a, new Float32Array(3)), 0);
  assert.ok(Math.abs(cosine(a, Float32Array.from([2, 4, 6])) - 1) < 1e-6);
  assert.throws(() => cosine(a, new Float32Array(2)), RangeError);
});

Deno.test("hash32 is FNV-1a with fmix32, fixed across runs and platforms", () => {
  // reference values from an independent implementation (Python, over UTF-16 code units)
  assert.equal(hash32(""), 2872998923);
  assert.equal(hash32("abc"), 482950588);
  assert.equal(hash32("w:苹果"), 3008334519);
  assert.notEqual(hash32("w:苹果"), hash32("w:香蕉"));
});

Deno.test("Hash embedder is deterministic, unit-length and fingerprinted by dimension", async () => {
  const a = createHashEmbedder();
  const b = createHashEmbedder();
  assert.equal(a.fingerprint, "hash-ngram:v1:512");
  assert.equal(createHashEmbedder({ dim: 256 }).fingerprint, "hash-ngram:v1:256");
  assert.deepEqual(a.modalities, ["text"]);
  const [x] = await a.embed(["我喜欢吃苹果 and apples"]);
  const [y] = await b.embed(["我喜欢吃苹果 and apples"]);
  assert.deepEqual(x, y);
  assert.equal(x!.length, 512);
  assert.ok(Math.abs(x!.reduce((s, v) => s + v * v, 0) - 1) < 1e-5);
  const [empty] = await a.embed(["  。。。 "]);
  assert.ok(empty!.every((v) => v === 0));
  assert.deepEqual(await a.embed([]), []);
  assert.throws(() => createHashEmbedder({ dim: 4 }), RangeError);
});

Deno.test("Hash embedder ranks a related Chinese sentence above unrelated ones", async () => {
  const embedder = createHashEmbedder();
  const embed = (t: string[]) => embedder.embed(t);
  const { winner, scores } = await best(embed, "我喜欢吃苹果", [
    "今天下雨了",
    "苹果很好吃",
    "他买了一台新电脑",
  ]);
  assert.equal(winner, "苹果很好吃");
  assert.ok(scores[1]! > scores[0]! + 0.2 && scores[1]! > scores[2]! + 0.2, String(scores));
  assert.equal(
    (await best(embed, "我的猫叫小白", ["明天要开会", "小白是一只白色的猫"])).winner,
    "小白是一只白色的猫",
  );
});

Deno.test("Hash embedder ranks a related English sentence above unrelated ones", async () => {
  const embedder = createHashEmbedder();
  const embed = (t: string[]) => embedder.embed(t);
  const { winner } = await best(embed, "I love eating apples", [
    "It is raining today",
    "Apples are delicious",
    "He bought a new computer",
  ]);
  assert.equal(winner, "Apples are delicious");
  const q = await best(embed, "where does Alice work", [
    "Bob plays tennis on weekends",
    "Alice works at the hospital",
  ]);
  assert.equal(q.winner, "Alice works at the hospital");
});

Deno.test("Hash embedder rejects with the abort reason when the signal is aborted", async () => {
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(
    createHashEmbedder().embed(["x"], { signal: controller.signal }),
    (e: unknown) => e instanceof Error && e.message === "stop" && !(e instanceof EmbeddingError),
  );
});
