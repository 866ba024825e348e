/**
 * Which onnxruntime runs a model: native (onnxruntime-node's Node-API binding) where FFI is
 * allowed, onnxruntime-web's wasm build where it is not, with the reason logged; both give the
 * same vectors for the tiny generated model.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { silentLogger } from "../../../core/mod.ts";
import { loadOnnxEmbedder } from "../../../memory/mod.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { withTinyModel } from "./_vectors.ts";

const VOCAB: [string, number[]][] = [
  ["[PAD]", [0, 0, 0, 0]],
  ["[UNK]", [0, 0, 0, 0.1]],
  ["[CLS]", [0, 0, 0, 0.1]],
  ["[SEP]", [0, 0, 0, 0.1]],
  ["apple", [1, 0, 0, 0]],
  ["rain", [0, 1, 0, 0]],
  ["love", [0, 0, 1, 0]],
];
const TEXTS = ["apple", "love rain", "rain rain apple"];

Deno.test("ONNX embedder runs native onnxruntime where FFI is allowed, in its Worker and inline", async () => {
  await withTinyModel(VOCAB, async (modelPath, vocabPath) => {
    const logger = new MemoryLogger();
    const open = (worker: boolean, engine?: "wasm") =>
      loadOnnxEmbedder({ modelPath, vocabPath, logger, worker, engine });
    const inWorker = await open(true), inline = await open(false), wasm = await open(false, "wasm");
    try {
      assert.equal(inWorker.engine, "native");
      assert.equal(inline.engine, "native");
      assert.equal(wasm.engine, "wasm");
      const [loaded] = logger.find("Loaded ONNX embedder");
      assert.equal(loaded?.fields.engine, "native");
      assert.equal(inWorker.fingerprint, wasm.fingerprint); // the same space either way
      const native = await inWorker.embed(TEXTS);
      assert.deepEqual(await inline.embed(TEXTS), native);
      for (const [i, v] of (await wasm.embed(TEXTS)).entries()) {
        v.forEach((x, d) => assert.ok(Math.abs(x - native[i]![d]!) < 1e-5, `${TEXTS[i]} [${d}]`));
      }
    } finally {
      await inWorker.close();
      await inline.close();
      await wasm.close();
    }
  });
});

Deno.test("ONNX embedder falls back to the wasm build without FFI permission, and says why", async () => {
  await withTinyModel(VOCAB, async (modelPath, vocabPath) => {
    const script = join(modelPath, "..", "probe.ts");
    const mod = new URL("../../../memory/mod.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { loadOnnxEmbedder } from ${JSON.stringify(mod)};
const lines = [];
const logger = { debug() {}, info: (m, f) => lines.push({ m, f }), warn() {}, error() {} };
const e = await loadOnnxEmbedder({ modelPath: ${JSON.stringify(modelPath)},
  vocabPath: ${JSON.stringify(vocabPath)}, logger, worker: false });
const [v] = await e.embed(["apple"]);
console.log(JSON.stringify({ engine: e.engine, lines, v: [...v] }));
await e.close();`,
    );
    const config = new URL("../../../deno.json", import.meta.url).pathname;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", "--config", config, "--allow-read", "--allow-env", script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const got = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(got.engine, "wasm");
    const loaded = got.lines.find((l: { m: string }) => l.m === "Loaded ONNX embedder");
    assert.equal(loaded.f.engine, "wasm");
    assert.match(loaded.f.nativeUnavailable, /--allow-ffi/);
    assert.equal(got.v.length, 4);
    const native = await loadOnnxEmbedder({ modelPath, vocabPath, logger: silentLogger });
    try {
      const [want] = await native.embed(["apple"]);
      got.v.forEach((x: number, d: number) => assert.ok(Math.abs(x - want![d]!) < 1e-5));
    } finally {
      await native.close();
    }
  });
});
