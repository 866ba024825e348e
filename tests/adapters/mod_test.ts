import assert from "node:assert/strict";
import {
  type AdapterBuilder,
  contextWindowFor,
  createProviderFactory,
  FALLBACK_CONTEXT_WINDOW,
  OllamaProvider,
  OpenAIProvider,
  systemClock,
} from "../../adapters/mod.ts";
import { silentLogger } from "../../core/ports.ts";
import { MemoryLogger } from "../fakes/logger.ts";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { sourceAt } from "./_support.ts";

Deno.test("createProviderFactory builds the native client named by the adapter", () => {
  const factory = createProviderFactory({ clock: systemClock, logger: silentLogger });
  assert.ok(factory(sourceAt("http://x/v1")) instanceof OpenAIProvider);
  assert.ok(factory(sourceAt("http://x", { adapter: "ollama" })) instanceof OllamaProvider);
});

Deno.test("createProviderFactory refuses an unknown adapter, listing the known ones", () => {
  const factory = createProviderFactory({ clock: systemClock, logger: silentLogger });
  assert.throws(
    () => factory(sourceAt("http://x", { adapter: "anthropic" })),
    (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /unknown adapter "anthropic"/);
      assert.match(error.message, /"openai", "ollama"/);
      return true;
    },
  );
});

Deno.test("createProviderFactory takes extra adapters from a table", () => {
  const built: string[] = [];
  const lua: AdapterBuilder = (source, options) => {
    built.push(source.name);
    return new OpenAIProvider({ ...options, source });
  };
  const factory = createProviderFactory({
    clock: systemClock,
    logger: silentLogger,
    adapters: new Map([["deepseek", lua]]),
  });
  factory(sourceAt("http://x", { name: "ds", adapter: "deepseek" }));
  assert.deepEqual(built, ["ds"]);
});

Deno.test("createProviderFactory hands its fetch and timeouts to the clients", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(reply.text("via injected fetch"));
  const urls: string[] = [];
  const factory = createProviderFactory({
    clock: systemClock,
    logger: silentLogger,
    fetch: (input, init) => {
      urls.push(String(input));
      return fetch(input, init);
    },
  });
  const provider = factory(sourceAt(server.url));
  assert.equal((await provider.chat({ messages: [] })).text, "via injected fetch");
  assert.deepEqual(urls, [`${server.url}/chat/completions`]);
});

Deno.test("contextWindowFor knows the common model families", () => {
  const cases: [string, number][] = [
    ["gpt-4o", 128_000],
    ["openai/gpt-4o-mini", 128_000],
    ["gpt-4.1-mini", 1_047_576],
    ["o3-mini", 200_000],
    ["claude-sonnet-4-5", 200_000],
    ["gemini-2.5-pro", 1_048_576],
    ["deepseek-chat", 65_536],
    ["deepseek-r1:14b", 131_072],
    ["qwen2.5:7b", 32_768],
    ["llama3.1:8b", 131_072],
    ["llama3:8b", 8_192],
    ["mistral-large-latest", 131_072],
    ["mistral:7b", 32_768],
  ];
  for (const [model, window] of cases) assert.equal(contextWindowFor(model), window, model);
});

Deno.test("contextWindowFor prefers the declared window and warns on unknown models", () => {
  const logger = new MemoryLogger();
  const lines = logger.lines;
  assert.equal(contextWindowFor("gpt-4o", { declared: 5000, logger }), 5000);
  assert.equal(contextWindowFor("my-finetune", { declared: 0, logger }), FALLBACK_CONTEXT_WINDOW);
  assert.equal(lines.length, 1);
  assert.equal(lines[0]?.level, "warn");
  assert.match(lines[0]?.msg ?? "", /"my-finetune" is unknown; assuming 8192 tokens/);
});

Deno.test("Native clients log the unknown-model warning once", () => {
  const logger = new MemoryLogger();
  const lines = logger.lines;
  const provider = new OpenAIProvider({
    source: sourceAt("http://x/v1", { model: "homebrew-7b" }),
    logger,
  });
  assert.equal(provider.maxContextTokens(), 8192);
  assert.equal(provider.maxContextTokens(), 8192);
  assert.equal(lines.length, 1);
});
