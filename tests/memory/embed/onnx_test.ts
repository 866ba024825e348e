import assert from "node:assert/strict";
import { EmbeddingError, silentLogger } from "../../../core/mod.ts";
import { loadOnnxEmbedder, WordPieceTokenizer } from "../../../memory/mod.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { best, withTinyModel } from "./_vectors.ts";

// axes: food, weather, liking, filler
const VOCAB: [string, number[]][] = [
  ["[PAD]", [0, 0, 0, 0]],
  ["[UNK]", [0, 0, 0, 0.1]],
  ["[CLS]", [0, 0, 0, 0.1]],
  ["[SEP]", [0, 0, 0, 0.1]],
  ["apple", [1, 0, 0, 0]],
  ["##s", [0, 0, 0, 0.05]],
  ["delicious", [0.8, 0, 0.2, 0]],
  ["love", [0, 0, 1, 0]],
  ["rain", [0, 1, 0, 0]],
  ["##ing", [0, 0, 0, 0.05]],
  ["today", [0, 0.3, 0, 0.3]],
  ["苹", [0.9, 0, 0, 0]],
  ["果", [0.9, 0, 0, 0.1]],
  ["好", [0.3, 0, 0.3, 0]],
  ["吃", [0.6, 0, 0.2, 0]],
  ["喜", [0, 0, 1, 0]],
  ["欢", [0, 0, 1, 0]],
  ["下", [0, 0.5, 0, 0.2]],
  ["雨", [0, 1, 0, 0]],
  ["今", [0, 0.1, 0, 0.5]],
  ["天", [0, 0.3, 0, 0.4]],
  [",", [0, 0, 0, 0.1]],
];

/** The same vocabulary as a Hugging Face tokenizer.json (uncased BERT normalizer). */
function tokenizerJson(lowercase = true): string {
  return JSON.stringify({
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, lowercase },
    pre_tokenizer: { type: "BertPreTokenizer" },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(VOCAB.map(([t], i) => [t, i])),
    },
  });
}

Deno.test("WordPieceTokenizer splits words greedily, CJK per character, punctuation apart", () => {
  const tokenizer = new WordPieceTokenizer(VOCAB.map(([t]) => t).join("\n"));
  assert.deepEqual(tokenizer.tokenize("Apples, RAINING!"), [
    "apple",
    "##s",
    ",",
    "rain",
    "##ing",
    "[UNK]",
  ]);
  assert.deepEqual(tokenizer.tokenize("我喜欢苹果"), ["[UNK]", "喜", "欢", "苹", "果"]);
  assert.deepEqual(tokenizer.tokenize("Àpple"), ["apple"]);
  assert.deepEqual(tokenizer.encode("apple rain today", 4), [2, 4, 8, 3]);
  const batch = tokenizer.encodeBatch(["apple", "rain today"]);
  assert.equal(batch.length, 4);
  assert.deepEqual([...batch.ids], [2n, 4n, 3n, 0n, 2n, 8n, 10n, 3n]);
  assert.deepEqual([...batch.mask], [1n, 1n, 1n, 0n, 1n, 1n, 1n, 1n]);
  assert.throws(() => new WordPieceTokenizer("a\nb"), SyntaxError);
});

Deno.test("ONNX embedder mean-pools a tiny generated model and ranks Chinese and English", async () => {
  await withTinyModel(VOCAB, async (modelPath, vocabPath) => {
    const embedder = await loadOnnxEmbedder({
      modelPath,
      vocabPath,
      logger: silentLogger,
      batchSize: 2,
    });
    try {
      assert.match(embedder.fingerprint, /^onnx\/tiny-bert@[0-9a-f]{12}:v2-mean:4$/);
      assert.equal(embedder.where, "worker");
      assert.equal(embedder.dim, 4);
      const [apples] = await embedder.embed(["apples"]);
      // [CLS] apple ##s [SEP] → mean (1, 0, 0, 0.25) / 4, normalised
      const expected = [1, 0, 0, 0.25].map((x) => x / Math.hypot(1, 0.25));
      expected.forEach((x, i) => assert.ok(Math.abs(apples![i]! - x) < 1e-5));
      const embed = (t: string[]) => embedder.embed(t);
      const zh = await best(embed, "我喜欢吃苹果", ["今天下雨了", "苹果很好吃"]);
      assert.equal(zh.winner, "苹果很好吃");
      const en = await best(embed, "I love apples", ["raining today", "delicious apples"]);
      assert.equal(en.winner, "delicious apples");
      const many = await embedder.embed(["apple", "rain", "today", "apple"]); // two batches
      assert.deepEqual(many[0], many[3]);
    } finally {
      await embedder.close();
    }
    await assert.rejects(embedder.embed(["apple"]), EmbeddingError);
  });
});

Deno.test("ONNX embedder reports missing files and a broken model explicitly", async () => {
  await assert.rejects(
    loadOnnxEmbedder({ modelPath: "", vocabPath: "", logger: silentLogger }),
    (e: unknown) =>
      e instanceof EmbeddingError && e.kind === "unavailable" && e.provider === "onnx",
  );
  await withTinyModel(VOCAB, async (modelPath, vocabPath) => {
    await assert.rejects(
      loadOnnxEmbedder({ modelPath: modelPath + ".missing", vocabPath, logger: silentLogger }),
      (e: unknown) => e instanceof EmbeddingError && e.kind === "unavailable",
    );
    await Deno.writeFile(modelPath, new TextEncoder().encode("not a model"));
    await assert.rejects(
      loadOnnxEmbedder({ modelPath, vocabPath, logger: silentLogger }),
      (e: unknown) => e instanceof EmbeddingError && e.kind === "failed",
    );
  });
});

Deno.test("ONNX embedder takes the [CLS] vector for a model that pools that way", async () => {
  await withTinyModel(VOCAB, async (modelPath, vocabPath) => {
    const embedder = await loadOnnxEmbedder({
      modelPath,
      vocabPath,
      pooling: "cls",
      logger: silentLogger,
      worker: false,
    });
    try {
      assert.match(embedder.fingerprint, /:v2-cls:4$/);
      assert.equal(embedder.where, "inline");
      // The tiny model has no attention: [CLS] is its own row, (0, 0, 0, 0.1), normalised.
      for (const v of await embedder.embed(["apples", "今天下雨了"])) {
        assert.deepEqual([...v], [0, 0, 0, 1]);
      }
    } finally {
      await embedder.close();
    }
  });
});

Deno.test("ONNX embedder reads a tokenizer.json and gives the same vectors in a Worker and inline", async () => {
  await withTinyModel(VOCAB, async (modelPath, _vocab) => {
    const tokenizer = modelPath.replace(/tiny-bert\.onnx$/, "tokenizer.json");
    await Deno.writeTextFile(tokenizer, tokenizerJson());
    const texts = ["Apples, RAINING today!", "我喜欢吃苹果", "delicious apples"];
    const open = (worker: boolean) =>
      loadOnnxEmbedder({ modelPath, vocabPath: tokenizer, logger: silentLogger, worker });
    const inWorker = await open(true);
    const inline = await open(false);
    try {
      assert.equal(inWorker.where, "worker");
      assert.equal(inWorker.fingerprint, inline.fingerprint);
      assert.deepEqual(await inWorker.embed(texts), await inline.embed(texts));
    } finally {
      await inWorker.close();
      await inline.close();
    }
  });
});

Deno.test("ONNX embedder refuses a model whose sha256 is not the installed one", async () => {
  await withTinyModel(VOCAB, async (modelPath, vocabPath) => {
    await assert.rejects(
      loadOnnxEmbedder({
        modelPath,
        vocabPath,
        logger: silentLogger,
        expectedSha256: "0".repeat(64),
      }),
      (e: unknown) => e instanceof EmbeddingError && /install it again/.test(e.message),
    );
  });
});

Deno.test("ONNX embedder runs inline, and says so, where its Worker module cannot load (a bundle)", async () => {
  await withTinyModel(VOCAB, async (modelPath, vocabPath) => {
    const logger = new MemoryLogger();
    const embedder = await loadOnnxEmbedder({
      modelPath,
      vocabPath,
      logger,
      workerUrl: new URL("./no_such_worker.ts", import.meta.url).href,
    });
    try {
      assert.equal(embedder.where, "inline");
      assert.equal(
        logger.find("Embedding worker cannot start; running the model on the main thread").length,
        1,
      );
      assert.equal((await embedder.embed(["apples"]))[0]!.length, 4);
    } finally {
      await embedder.close();
    }
  });
});
