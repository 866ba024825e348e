/**
 * The real sentence models (the development copies of `deno task model:dev`) against what Hugging
 * Face `tokenizers` and native onnxruntime make of them (tests/fixtures/models/reference.json):
 * the same token ids, the same vectors. Skipped, with one line, when the models are absent.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { silentLogger } from "../../../core/mod.ts";
import {
  DEFAULT_MODEL,
  loadInstalledEmbedder,
  MODEL_CATALOG,
  WordPieceTokenizer,
} from "../../../memory/mod.ts";
import { devModel, devModelOrSkip, devModelsDir } from "../../fixtures/dev_model.ts";

interface Reference {
  strings: string[];
  sentences: string[];
  models: Record<string, { sha256: string; ids: number[][]; vectors: number[][] }>;
}

const reference: Reference = JSON.parse(
  await Deno.readTextFile(new URL("../../fixtures/models/reference.json", import.meta.url)),
);
const primary = await devModelOrSkip("onnx_model_test.ts");
const installed = (await Promise.all(MODEL_CATALOG.map((m) => devModel(m.name))))
  .filter((m) => m !== undefined);

Deno.test({
  name: "WordPieceTokenizer from each model's tokenizer.json gives Hugging Face's token ids",
  ignore: installed.length === 0,
  async fn() {
    for (const model of installed) {
      const text = await Deno.readTextFile(join(model.dir, "tokenizer.json"));
      const tokenizer = WordPieceTokenizer.fromTokenizerJson(text);
      const want = reference.models[model.name]!;
      assert.equal(model.manifest.model.sha256, want.sha256);
      reference.strings.forEach((s, i) => {
        assert.deepEqual(
          tokenizer.encode(s, 100_000),
          want.ids[i],
          `${model.name}: ${JSON.stringify(s)}`,
        );
      });
    }
  },
});

Deno.test({
  name: "The default model gives native onnxruntime's vectors and finds the kitten for 'my cat'",
  ignore: primary === undefined,
  async fn() {
    const embedder = await loadInstalledEmbedder(devModelsDir(), DEFAULT_MODEL, {
      logger: silentLogger,
    });
    try {
      assert.equal(embedder.where, "worker");
      assert.equal(embedder.engine, "native"); // the tests run with FFI permission
      const want = reference.models[DEFAULT_MODEL]!.vectors;
      for (const [i, sentence] of reference.sentences.entries()) {
        const [got] = await embedder.embed([sentence]); // alone: batch 1, as the reference ran
        const cos = got!.reduce((s, x, j) => s + x * want[i]![j]!, 0);
        assert.ok(cos > 0.999, `sentence ${i}: cosine ${cos} to the reference`);
      }
      const memories = [
        "Mimi, my kitten, sleeps on the sofa all afternoon.",
        "The quarterly report is due on Friday.",
        "We drove to the coast and ate fish and chips.",
        "咪咪是我养的小猫，每天都在沙发上睡觉。",
        "明天上午十点开会讨论预算。",
      ];
      const [en, zh, ...vectors] = await embedder.embed([
        "How is my cat doing?",
        "我的猫怎么样了？",
        ...memories,
      ]);
      const best = (q: Float32Array) =>
        memories[
          vectors.map((v) => v.reduce((s, x, j) => s + x * q[j]!, 0))
            .reduce((b, s, i, all) => (s > all[b]! ? i : b), 0)
        ];
      assert.match(best(en!)!, /kitten|小猫/);
      assert.match(best(zh!)!, /kitten|小猫/);
    } finally {
      await embedder.close();
    }
  },
});
