import assert from "node:assert/strict";
import { EmbeddingError } from "../../core/mod.ts";
import { spaceHint, spaceLayers } from "../../memory/space_status.ts";

Deno.test("a words-only home says both better layers are missing and how to enable each", () => {
  const layers = spaceLayers("hash", []);
  assert.deepEqual(layers.map((l) => [l.layer, l.state]), [
    ["model", "not_configured"],
    ["word_vectors", "not_configured"],
    ["words", "active"],
  ]);
  assert.match(
    layers[0]!.enable!,
    /homeagent memory model install.*bge-small-zh-v15-q for Chinese.*e5-small-v2-q for English/,
  );
  assert.match(layers[1]!.enable!, /core\.agent\.embedding_model_path/);
  assert.equal(layers[2]!.enable, undefined);
  assert.match(spaceHint("hash", [])!, /e5-small-v2-q for English, 33 MiB/);
});

Deno.test("a model that failed is reported with its error; the layers below it stand by", () => {
  const failure = new EmbeddingError("onnx", "failed", 'Model "x" does not match its manifest');
  const fellBack = spaceLayers("hash", [failure]);
  assert.deepEqual(fellBack[0], {
    layer: "model",
    state: "failed",
    kind: "onnx",
    error: 'Model "x" does not match its manifest',
    enable: fellBack[0]!.enable,
  });
  assert.match(fellBack[0]!.enable!, /memory model install/);
  const static_ = spaceLayers("static", []);
  assert.deepEqual(static_.map((l) => l.state), ["not_configured", "active", "standby"]);
  const model = spaceLayers("onnx", []);
  assert.deepEqual(model.map((l) => l.state), ["active", "standby", "standby"]);
  const lastResort = spaceLayers("tfidf", [
    new EmbeddingError("static", "unavailable", "No vector file configured"),
    new EmbeddingError("hash", "failed", "jieba did not load"),
  ]);
  assert.deepEqual(lastResort.map((l) => [l.state, l.error]), [
    ["not_configured", undefined],
    ["failed", "No vector file configured"],
    ["active", undefined],
  ]);
});
