import assert from "node:assert/strict";
import type { Embedder } from "../../../core/mod.ts";
import { inputEvent, rankEvents } from "./_rank.ts";
import { scriptCoverage } from "../../../memory/text/scripts.ts";
import { defaultRecallSettings, denseWeightFor } from "../../../memory/recall/config.ts";

Deno.test("scriptCoverage is the share of words in the scripts of the declared languages", () => {
  assert.equal(scriptCoverage(["what did the doctor say"], ["zh"]), 0);
  assert.equal(scriptCoverage(["我的猫不吃饭"], ["zh"]), 1);
  assert.equal(scriptCoverage(["我的猫 my cat"], ["zh"]), 3 / 5);
  assert.equal(scriptCoverage(["Мой кот"], ["en", "de"]), 0);
  assert.equal(scriptCoverage(["what did the doctor say"], undefined), 1);
  assert.equal(scriptCoverage(["what did the doctor say"], ["xx"]), 1, "unknown: trusted");
  assert.equal(scriptCoverage(["42 ?!"], ["zh"]), 1, "no letters: nothing to judge");
});

Deno.test("denseWeightFor moves to the foreign weight for words outside the model's languages", () => {
  const settings = { denseWeight: 0.7, foreignWeight: 0.1, languages: ["zh"], turns: 8, decay: 1 };
  assert.equal(denseWeightFor(settings, ["我的猫不吃饭"]), 0.7);
  assert.ok(Math.abs(denseWeightFor(settings, ["my cat is ill"]) - 0.1) < 1e-9);
  assert.ok(Math.abs(denseWeightFor(settings, ["我的猫 my cat"]) - (0.1 + 0.6 * 3 / 5)) < 1e-9);
  assert.equal(defaultRecallSettings({ fingerprint: "onnx/x@0:v2-cls:2" }).foreignWeight, 0);
  assert.equal(denseWeightFor({ ...settings, languages: undefined }, ["my cat is ill"]), 0.7);
});

/** A Chinese model's weak English: "cat" lands on the weather's axis. */
const chineseModel = (languages?: string[]): Embedder => ({
  fingerprint: "onnx/zh-test@000000000000:v2-cls:2",
  dim: 2,
  languages,
  modalities: ["text"],
  embed: (texts) => Promise.resolve(texts.map(() => Float32Array.from([0, 1]))),
});

const event = (id: string, input: string, vector: number[], fingerprint: string) =>
  inputEvent(id, input, { vector, fingerprint });

async function firstFor(embedder: Embedder, question: string): Promise<string | undefined> {
  const ranked = await rankEvents(embedder, question, [
    event("cat", "my cat Mimi sleeps on the sofa", [1, 0], embedder.fingerprint),
    event("rain", "rain all day tomorrow", [0, 1], embedder.fingerprint),
  ]);
  return ranked[0]?.event?.id;
}

Deno.test("An English query to a model trained for Chinese is ranked by its words", async () => {
  assert.equal(await firstFor(chineseModel(["zh"]), "how is my cat"), "cat");
  // A model that declares nothing keeps the dense weight: its vector wins here.
  assert.equal(await firstFor(chineseModel(undefined), "how is my cat"), "rain");
});

Deno.test("A query mostly in a script the model was not trained for is ranked the words-only way, with feedback", async () => {
  const embedder = chineseModel(["zh"]);
  const ranked = await rankEvents(embedder, "how is my cat", [
    event("cat", "my cat Mimi sleeps on the sofa", [1, 0], embedder.fingerprint),
    event("rain", "rain all day tomorrow", [1, 0], embedder.fingerprint),
    event("mimi", "Mimi chased a moth at night", [1, 0], embedder.fingerprint),
  ]);
  // "mimi" shares no query word: only the feedback of the best item's words lifts it over "rain".
  assert.deepEqual(ranked.map((r) => r.event?.id), ["cat", "mimi", "rain"]);
});
