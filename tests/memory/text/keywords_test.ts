import assert from "node:assert/strict";
import {
  createTextAnalyzer,
  IdfTable,
  keywords,
  stemEnglish,
  tokenize,
} from "../../../memory/mod.ts";

Deno.test("tokenize splits Chinese with jieba and drops stop words", async () => {
  assert.deepEqual(await tokenize("我喜欢吃苹果"), ["喜欢", "吃", "苹果"]);
  assert.deepEqual(await tokenize("今天下雨了"), ["今天", "下雨"]);
  assert.deepEqual(await tokenize("我喜欢吃苹果", { keepStopWords: true }), [
    "我",
    "喜欢",
    "吃",
    "苹果",
  ]);
});

Deno.test("tokenize lower-cases English, splits on non-letters and stems plurals", async () => {
  assert.deepEqual(await tokenize("The CITIES were flooded; rain-storms!"), [
    "city",
    "flooded",
    "rain",
    "storm",
  ]);
  assert.deepEqual(await tokenize("Don't worry about 2 apples"), ["worry", "2", "apple"]);
});

Deno.test("tokenize keeps the order of mixed Chinese and English text", async () => {
  assert.deepEqual(await tokenize("我在Google工作, 用Deno写代码"), [
    "google",
    "工作",
    "用",
    "deno",
    "写",
    "代码",
  ]);
});

Deno.test("stemEnglish strips plural endings only", () => {
  const cases: [string, string][] = [
    ["cities", "city"],
    ["pies", "pie"],
    ["apples", "apple"],
    ["boxes", "boxe"],
    ["glass", "glass"],
    ["bus", "bus"],
    ["running", "running"],
    ["is", "is"],
  ];
  for (const [word, stem] of cases) assert.equal(stemEnglish(word), stem, word);
});

Deno.test("keywords of Chinese text keep names and nouns and drop function words", async () => {
  const found = (await keywords("北京是中华人民共和国的首都，张三住在北京。", { limit: 3 }))
    .map((k) => k.word);
  assert.equal(found[0], "北京");
  assert.ok(found.includes("中华人民共和国"));
  for (const word of found) assert.ok([...word].length >= 2, word);
  const all = (await keywords("我喜欢吃苹果")).map((k) => k.word);
  assert.deepEqual(all, ["苹果", "喜欢"]);
});

Deno.test("keywords of English text rank repeated content words first, stop words never", async () => {
  const found = await keywords(
    "The city council met on Monday. The council approved the new city park.",
    { limit: 4 },
  );
  assert.deepEqual(found.slice(0, 2).map((k) => k.word).sort(), ["city", "council"]);
  assert.equal(found.length, 4);
  assert.ok(found.every((k) => !["the", "on", "new"].includes(k.word)));
  assert.ok(found[0]!.score >= found[1]!.score && found[1]!.score >= found[2]!.score);
});

Deno.test("keywords honours limit and returns nothing for stop words only", async () => {
  assert.equal(
    (await keywords("apples bananas cherries dates figs grapes", { limit: 2 })).length,
    2,
  );
  assert.deepEqual(await keywords("the and of 的 了 是"), []);
  assert.deepEqual(await keywords(""), []);
});

Deno.test("TextAnalyzer learns IDF so corpus-wide words lose rank", async () => {
  const idf = new IdfTable();
  const analyzer = await createTextAnalyzer({ idf });
  const before = analyzer.keywords("苹果和香蕉").map((k) => k.word);
  assert.deepEqual(before, ["苹果", "香蕉"]); // tie on the prior, first occurrence first
  for (let i = 0; i < 40; i++) analyzer.learn(`今天又吃了苹果 ${i}`);
  assert.equal(idf.documents, 40);
  const after = analyzer.keywords("苹果和香蕉").map((k) => k.word);
  assert.deepEqual(after, ["香蕉", "苹果"]);
});

Deno.test("IdfTable blends learned frequencies with the prior", () => {
  const idf = new IdfTable();
  assert.equal(idf.idf("x", 2), 2);
  idf.learn(["a", "a", "b"]);
  idf.learn(["a"]);
  const rareWord = idf.idf("zzz", 2);
  const common = idf.idf("a", 2);
  assert.ok(rareWord > common);
});

Deno.test("keywords remember the tagged cuts of the last 128 texts, not more", async () => {
  let tags = 0;
  const segmenter = {
    cut: (text: string) => [...text],
    tag: (text: string) => (tags++, [...text].map((word) => ({ word, tag: "n" }))),
  };
  const analyzer = await createTextAnalyzer({ segmenter });
  const text = (i: number) => `记住${String.fromCodePoint(0x4e00 + i)}`;
  for (let i = 0; i < 200; i++) analyzer.keywords(text(i));
  assert.equal(tags, 200);
  // The graph's recall asks again for the input and the recent turns: those are remembered.
  for (let i = 200 - 65; i < 200; i++) analyzer.keywords(text(i));
  assert.equal(tags, 200);
  // A text from 200 texts ago (an archived document's, asked once) is cut again.
  analyzer.keywords(text(0));
  assert.equal(tags, 201);
});
