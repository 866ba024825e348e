/** ConfigRegistry's LLM sources: listing and order, live changes, the env shortcut, presets. */
import assert from "node:assert/strict";
import { sourceFingerprint } from "../../../core/llm/sources.ts";
import { SECRET_MASK } from "../../../core/config/types.ts";
import { openTestRegistry } from "../../fakes/config.ts";

const ENV = {
  HOMEAGENT_LLM_BASE_URL: "http://127.0.0.1:11434",
  HOMEAGENT_LLM_MODEL: "qwen3:8b",
  HOMEAGENT_LLM_ADAPTER: "ollama",
};

Deno.test("ConfigRegistry lists LLM sources with a base URL or model, enabled ones in llmSources", () => {
  using t = openTestRegistry();
  t.registry.set("core.llm.sources.main.base_url", "https://api.openai.com/v1");
  t.registry.set("core.llm.sources.main.model", "gpt-4o-mini");
  t.registry.set("core.llm.sources.main.api_key", "sk-test");
  t.registry.set("core.llm.sources.spare.model", "llama3");
  t.registry.set("core.llm.sources.spare.enabled", false);
  t.registry.set("core.llm.sources.empty.enabled", true);
  assert.deepEqual(t.registry.llmSources(), [{
    name: "main",
    adapter: "openai",
    baseUrl: "https://api.openai.com/v1",
    apiKey: "sk-test",
    model: "gpt-4o-mini",
    enabled: true,
  }]);
  assert.deepEqual(t.registry.allLlmSources().map((s) => [s.name, s.enabled]), [
    ["main", true],
    ["spare", false],
  ]);
});

Deno.test("ConfigRegistry orders LLM sources by core.llm.order, then by first stored key", () => {
  using t = openTestRegistry();
  for (const name of ["c", "a", "b"]) {
    t.registry.set(`core.llm.sources.${name}.model`, `model-${name}`);
  }
  const names = () => t.registry.llmSources().map((s) => s.name);
  assert.deepEqual(names(), ["c", "a", "b"]);
  t.registry.set("core.llm.sources.c.base_url", "http://127.0.0.1:8080/v1");
  assert.deepEqual(names(), ["c", "a", "b"]);
  t.registry.set("core.llm.order", "b");
  assert.deepEqual(names(), ["b", "c", "a"]);
  t.registry.setFromText("core.llm.order", " a , ghost, b ");
  assert.deepEqual(names(), ["a", "b", "c"]);
  names();
  assert.equal(t.logger.at("warn").length, 1);
  assert.deepEqual(t.logger.at("warn")[0]?.fields.names, ["ghost"]);
  assert.throws(() => t.registry.set("core.llm.order", "a;b"), /comma-separated list/);
});

Deno.test("ConfigRegistry shows a source change on the next llmSources() call", () => {
  using t = openTestRegistry();
  t.registry.set("core.llm.sources.main.base_url", "http://127.0.0.1:11434");
  t.registry.set("core.llm.sources.main.model", "qwen3:8b");
  const before = t.registry.llmSources()[0]!;
  t.registry.set("core.llm.sources.main.model", "qwen3:14b");
  t.registry.set("core.llm.sources.main.context_window", 40960);
  const after = t.registry.llmSources()[0]!;
  assert.equal(after.model, "qwen3:14b");
  assert.equal(after.contextWindow, 40960);
  assert.notEqual(sourceFingerprint(after), sourceFingerprint(before));
  t.registry.set("core.llm.sources.main.enabled", false);
  assert.deepEqual(t.registry.llmSources(), []);
});

Deno.test("ConfigRegistry puts the env shortcut source first as an overlay, not stored", () => {
  using t = openTestRegistry({ env: { ...ENV, HOMEAGENT_LLM_API_KEY: "k-env" } });
  t.registry.set("core.llm.sources.main.model", "gpt-4o-mini");
  t.registry.set("core.llm.sources.main.base_url", "https://api.openai.com/v1");
  assert.deepEqual(t.registry.llmSources()[0], {
    name: "env",
    adapter: "ollama",
    baseUrl: "http://127.0.0.1:11434",
    apiKey: "k-env",
    model: "qwen3:8b",
    enabled: true,
  });
  assert.deepEqual(t.registry.llmSources().map((s) => s.name), ["env", "main"]);
  assert.deepEqual(t.store.list("config", "core.llm.sources.env."), []);

  const listed = t.registry.list("core.llm.sources.env.");
  const byKey = new Map(listed.map((e) => [e.key, e]));
  assert.equal(byKey.get("core.llm.sources.env.model")?.source, "env");
  assert.equal(byKey.get("core.llm.sources.env.api_key")?.value, SECRET_MASK);
  assert.equal(byKey.get("core.llm.sources.env.enabled")?.source, "default");
  assert.throws(
    () => t.registry.set("core.llm.sources.env.model", "other"),
    /Cannot set "core\.llm\.sources\.env\.model": it comes from HOMEAGENT_LLM_MODEL/,
  );

  t.registry.set("core.llm.order", "main");
  assert.deepEqual(t.registry.llmSources().map((s) => s.name), ["main", "env"]);
  t.registry.set("core.llm.sources.env.enabled", false);
  assert.deepEqual(t.registry.llmSources().map((s) => s.name), ["main"]);
});

Deno.test("ConfigRegistry defaults the env shortcut adapter to openai", () => {
  const { HOMEAGENT_LLM_ADAPTER: _, ...env } = ENV;
  using t = openTestRegistry({ env });
  assert.equal(t.registry.llmSources()[0]?.adapter, "openai");
  assert.equal(t.registry.llmSources()[0]?.apiKey, undefined);
});

Deno.test("ConfigRegistry warns about a partial env shortcut and defines no env source", () => {
  using t = openTestRegistry({ env: { HOMEAGENT_LLM_BASE_URL: ENV.HOMEAGENT_LLM_BASE_URL } });
  assert.deepEqual(t.registry.llmSources(), []);
  const warning = t.logger.at("warn")[0];
  assert.equal(warning?.msg, "LLM environment shortcut ignored: HOMEAGENT_LLM_MODEL is not set");
  assert.deepEqual(warning?.fields.missing, ["HOMEAGENT_LLM_MODEL"]);

  using quiet = openTestRegistry({ env: { HOMEAGENT_LLM_MODEL: " ", OTHER: "x" } });
  assert.deepEqual(quiet.logger.lines, []);
});

Deno.test("ConfigRegistry warns once about an invalid env value and uses the default", () => {
  using t = openTestRegistry({ env: { ...ENV, HOMEAGENT_LLM_BASE_URL: "localhost:11434" } });
  assert.equal(t.registry.get("core.llm.sources.env.base_url"), "");
  assert.equal(t.registry.llmSources()[0]?.model, "qwen3:8b");
  const warnings = t.logger.at("warn");
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]?.fields.variable, "HOMEAGENT_LLM_BASE_URL");
});
