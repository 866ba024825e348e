import assert from "node:assert/strict";
import { createTfIdfSpace, sparseCosine, tfidfTerms } from "../../../memory/mod.ts";
import { best } from "./_vectors.ts";

Deno.test("tfidfTerms are Han bigrams and stemmed non-stop words", () => {
  assert.deepEqual(tfidfTerms("我喜欢吃苹果"), ["我喜", "喜欢", "欢吃", "吃苹", "苹果"]);
  assert.deepEqual(tfidfTerms("The apples, 果"), ["apple", "果"]);
});

Deno.test("TF-IDF space ranks related sentences first in Chinese and English", async () => {
  const space = createTfIdfSpace({ dim: 256 });
  space.fit([
    "我喜欢吃苹果",
    "苹果很好吃",
    "今天下雨了",
    "I love eating apples",
    "It is raining today",
  ]);
  const embed = (t: string[]) => space.embed(t);
  assert.equal(
    (await best(embed, "苹果好吃吗", ["今天下雨了", "苹果很好吃"])).winner,
    "苹果很好吃",
  );
  assert.equal(
    (await best(embed, "apples again", ["It is raining today", "I love eating apples"])).winner,
    "I love eating apples",
  );
  assert.ok(
    space.similarity("苹果很好吃", "苹果好吃") > space.similarity("苹果很好吃", "今天下雨了"),
  );
  assert.equal(space.similarity("", "苹果"), 0);
});

Deno.test("TF-IDF space fits incrementally: a corpus-wide term weighs less", () => {
  const space = createTfIdfSpace();
  assert.equal(space.fingerprint, "tfidf-hash:v1:1024");
  const before = space.sparse("苹果 香蕉");
  assert.ok(Math.abs(before.get("苹果")! - before.get("香蕉")!) < 1e-9);
  space.fit(Array.from({ length: 10 }, (_, i) => `苹果 ${i}`));
  assert.equal(space.documents, 10);
  const after = space.sparse("苹果 香蕉");
  assert.ok(after.get("香蕉")! > after.get("苹果")!);
  assert.ok(Math.abs(sparseCosine(after, after) - 1) < 1e-9);
});

Deno.test("TF-IDF fingerprint follows its dimension", () => {
  assert.notEqual(createTfIdfSpace({ dim: 64 }).fingerprint, createTfIdfSpace().fingerprint);
  assert.throws(() => createTfIdfSpace({ dim: 2 }), RangeError);
});
