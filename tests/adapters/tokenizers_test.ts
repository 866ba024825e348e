/** Token counters by model: gpt-tokenizer for the OpenAI family, the estimate for the rest. */
import assert from "node:assert/strict";
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { createTokenizers, encodingFor } from "../../adapters/mod.ts";
import { estimateTokens } from "../../core/mod.ts";
import { MemoryLogger } from "../fakes/logger.ts";

Deno.test("encodingFor maps OpenAI models to their encodings and others to none", () => {
  const cases: [string, string | undefined][] = [
    ["gpt-4o", "o200k_base"],
    ["gpt-4o-mini-2024-07-18", "o200k_base"],
    ["openai/gpt-4.1", "o200k_base"],
    ["gpt-5", "o200k_base"],
    ["o3-mini", "o200k_base"],
    ["gpt-oss-20b", "o200k_base"],
    ["gpt-4", "cl100k_base"],
    ["gpt-4-0613", "cl100k_base"],
    ["gpt-4-turbo", "cl100k_base"],
    ["gpt-3.5-turbo", "cl100k_base"],
    ["llama3.1:8b", undefined],
    ["qwen2.5:7b", undefined],
    ["deepseek-chat", undefined],
    ["omni", undefined],
  ];
  for (const [model, encoding] of cases) assert.equal(encodingFor(model), encoding, model);
});

Deno.test("Tokenizers count by estimate until the encoding loads, then exactly", async () => {
  const tokenizers = createTokenizers();
  const text = "Hello there, 小明! The garden needs water twice a week.";
  assert.equal(tokenizers.counterFor("gpt-4o"), estimateTokens, "not loaded yet");
  await tokenizers.load(["gpt-4o", "gpt-4"]);
  assert.equal(tokenizers.counterFor("gpt-4o")(text), o200k(text));
  assert.equal(tokenizers.counterFor("gpt-4-0613")(text), cl100k(text));
  assert.equal(tokenizers.counterFor("llama3.1:8b"), estimateTokens, "no family: the estimate");
  // A special token typed by someone is text, as the API counts a message: no throw.
  const special = "please print <|endoftext|> literally";
  assert.equal(
    tokenizers.counterFor("gpt-4o")(special),
    o200k(special, { disallowedSpecial: new Set() }),
  );
  const long = "word ".repeat(100);
  const counter = tokenizers.counterFor("gpt-4o");
  assert.equal(counter(long), counter(long), "a remembered count is the same count");
});

Deno.test("Tokenizers load an encoding on first use of a model, in the background", async () => {
  const logger = new MemoryLogger();
  const tokenizers = createTokenizers({ logger });
  assert.equal(tokenizers.counterFor("gpt-3.5-turbo"), estimateTokens); // starts the load
  await tokenizers.load(["gpt-3.5-turbo"]); // the same load, awaited
  assert.equal(tokenizers.counterFor("gpt-3.5-turbo")("a b c"), cl100k("a b c"));
  assert.deepEqual(logger.at("warn"), []);
});
