import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../../../core/errors.ts";
import { sourceFingerprint } from "../../../core/llm/sources.ts";
import { SECRET_MASK } from "../../../core/config/types.ts";
import { llmSourcePresets } from "../../../core/config/core_defaults.ts";
import { openTestRegistry } from "../../fakes/config.ts";
import type { LogLine, MemoryLogger } from "../../fakes/logger.ts";

const ENV = {
  HOMEAGENT_LLM_BASE_URL: "http://127.0.0.1:11434",
  HOMEAGENT_LLM_MODEL: "qwen3:8b",
  HOMEAGENT_LLM_ADAPTER: "ollama",
};

function levelLines(t: { logger: MemoryLogger }, level: LogLine["level"]): LogLine[] {
  return t.logger.lines.filter((line) => line.level === level);
}

function refusal(key: string, message: string) {
  return (error: unknown) => {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${error}`);
    assert.equal(error.key, key);
    assert.equal(error.message, message);
    return true;
  };
}

Deno.test("ConfigRegistry returns the defaults of keys never set", () => {
  using t = openTestRegistry();
  assert.equal(t.registry.get("core.agent.max_tool_turns"), 10);
  assert.equal(t.registry.get("core.agent.stream"), true);
  assert.equal(t.registry.get("core.web.host"), "127.0.0.1");
  assert.equal(t.registry.get("core.web.port"), 7800);
  assert.equal(t.registry.get("core.llm.sources.main.adapter"), "openai");
  assert.deepEqual(t.registry.llmSources(), []);
});

Deno.test("ConfigRegistry keeps a set value across reopening the database file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent_registry_" });
  try {
    const path = join(dir, "config.db");
    {
      using t = openTestRegistry({ path });
      t.registry.set("core.agent.max_tool_turns", 25);
      t.registry.set("core.llm.sources.main.model", "gpt-4o-mini");
    }
    using t = openTestRegistry({ path });
    assert.equal(t.registry.get("core.agent.max_tool_turns"), 25);
    assert.equal(t.registry.get("core.llm.sources.main.model"), "gpt-4o-mini");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ConfigRegistry refuses a bad value naming the key and the reason", () => {
  using t = openTestRegistry();
  const key = "core.agent.max_tool_turns";
  assert.throws(
    () => t.registry.setFromText(key, "abc"),
    refusal(key, `Cannot set "${key}": expected an integer between 1 and 100, got "abc"`),
  );
  assert.throws(
    () => t.registry.set(key, 500),
    refusal(key, `Cannot set "${key}": expected an integer between 1 and 100, got 500`),
  );
  assert.throws(
    () => t.registry.set("core.llm.sources.main.base_url", "ftp://example.org"),
    refusal(
      "core.llm.sources.main.base_url",
      `Cannot set "core.llm.sources.main.base_url": expected an http:// or https:// URL, ` +
        `got "ftp://example.org"`,
    ),
  );
  assert.throws(
    () => t.registry.setFromText("core.agent.stream", "yes"),
    refusal(
      "core.agent.stream",
      `Cannot set "core.agent.stream": expected true or false, got "yes"`,
    ),
  );
  assert.equal(t.registry.get(key), 10);
  assert.deepEqual(t.store.list("config"), []);
});

Deno.test("ConfigRegistry never echoes a secret in a refusal", () => {
  using t = openTestRegistry();
  assert.throws(
    () => t.registry.set("core.llm.sources.main.api_key", 123456789),
    refusal(
      "core.llm.sources.main.api_key",
      `Cannot set "core.llm.sources.main.api_key": expected a string, ` +
        `got a number (secret, not shown)`,
    ),
  );
});

Deno.test("ConfigRegistry refuses an unknown key with a hint", () => {
  using t = openTestRegistry();
  assert.throws(
    () => t.registry.get("core.agent.max_tool_turn"),
    refusal(
      "core.agent.max_tool_turn",
      `Unknown config key "core.agent.max_tool_turn": did you mean "core.agent.max_tool_turns"?`,
    ),
  );
  assert.throws(
    () => t.registry.set("core.llm.sources.main.modle", "x"),
    /did you mean "core\.llm\.sources\.main\.model"\?/,
  );
  assert.throws(
    () => t.registry.get("core.nothing.like.this"),
    /run "homeagent config list" to see the known keys/,
  );
  assert.throws(() => t.registry.get("web.port"), /keys start with "core\." or "plugin\.<name>\."/);
});

Deno.test("ConfigRegistry refuses duplicate definitions and defaults that do not validate", () => {
  using t = openTestRegistry();
  const definition = {
    key: "core.agent.stream",
    schema: z.boolean(),
    default: false,
    description: "",
  };
  assert.throws(() => t.registry.define(definition), TypeError);
  assert.throws(
    () => t.registry.define({ ...definition, key: "core.llm.sources.*.model" }),
    TypeError,
  );
  assert.throws(
    () =>
      t.registry.define({ key: "core.x.y", schema: z.int().min(1), default: 0, description: "" }),
    TypeError,
  );
  assert.throws(
    () =>
      t.registry.define({ key: "core.*.a.*", schema: z.string(), default: "", description: "" }),
    TypeError,
  );
});

Deno.test("ConfigRegistry.setFromText reads numbers, booleans, JSON and plain text", () => {
  using t = openTestRegistry();
  t.registry.define({
    key: "plugin.files.roots",
    schema: z.array(z.string()),
    default: [],
    description: "Folders the files plugin may touch",
  });
  t.registry.setFromText("core.web.port", " 8080 ");
  t.registry.setFromText("core.agent.stream", "false");
  t.registry.setFromText("plugin.files.roots", '["/srv", "/home"]');
  t.registry.setFromText("core.llm.sources.main.model", "1234");
  assert.equal(t.registry.get("core.web.port"), 8080);
  assert.equal(t.registry.get("core.agent.stream"), false);
  assert.deepEqual(t.registry.get("plugin.files.roots"), ["/srv", "/home"]);
  assert.equal(t.registry.get("core.llm.sources.main.model"), "1234");
  assert.throws(
    () => t.registry.setFromText("plugin.files.roots", "[/srv"),
    /Cannot set "plugin\.files\.roots": expected a JSON array, got "\[\/srv"/,
  );
  assert.throws(() => t.registry.setFromText("core.web.port", ""), /expected an integer between/);
});

Deno.test("ConfigRegistry validates per-source keys through their pattern", () => {
  using t = openTestRegistry();
  t.registry.set("core.llm.sources.local.base_url", "http://127.0.0.1:11434");
  t.registry.set("core.llm.sources.local.context_window", 32768);
  assert.equal(t.registry.get("core.llm.sources.local.base_url"), "http://127.0.0.1:11434");
  assert.equal(t.registry.get("core.llm.sources.local.enabled"), true);
  assert.throws(
    () => t.registry.set("core.llm.sources.local.context_window", -1),
    /expected an integer at least 0, got -1/,
  );
  assert.throws(() => t.registry.get("core.llm.sources.bad name.model"), ConfigError);
});

Deno.test("ConfigRegistry keeps plugin keys in the plugin's own table", () => {
  using t = openTestRegistry();
  t.registry.define({
    key: "plugin.weather.city",
    schema: z.string().min(1),
    default: "Oslo",
    description: "City for forecasts",
  });
  t.registry.set("plugin.weather.city", "Bergen");
  assert.deepEqual(t.store.tables(), ["config", "config_weather"]);
  assert.equal(t.store.get("config_weather", "plugin.weather.city")?.value, '"Bergen"');
  assert.equal(t.store.get("config", "plugin.weather.city"), undefined);
  assert.equal(t.registry.get("plugin.weather.city"), "Bergen");
  const badName = {
    key: "plugin.Weather-Now.city",
    schema: z.string(),
    default: "",
    description: "",
  };
  assert.throws(() => t.registry.define(badName), /Invalid plugin name "Weather-Now"/);
  assert.throws(() => t.registry.get("plugin.x;drop.city"), ConfigError);
});

Deno.test("ConfigRegistry.list masks secrets unless revealed and lists each stored source", () => {
  using t = openTestRegistry();
  t.registry.set("core.web.token", "s3cret-token");
  t.registry.set("core.llm.sources.main.base_url", "https://api.openai.com/v1");
  t.registry.set("core.llm.sources.main.api_key", "sk-test");
  t.registry.set("core.agent.max_tool_turns", 10);

  const web = t.registry.list("core.web.");
  assert.deepEqual(web.map((e) => e.key), ["core.web.host", "core.web.port", "core.web.token"]);
  const token = web.find((e) => e.key === "core.web.token")!;
  assert.equal(token.value, SECRET_MASK);
  assert.equal(token.default, "");
  assert.equal(token.source, "stored");
  assert.equal(token.secret, true);
  assert.equal(t.registry.list("core.web.token", { reveal: true })[0]?.value, "s3cret-token");

  const turns = t.registry.list("core.agent.max_tool_turns")[0]!;
  assert.equal(turns.source, "stored");
  assert.equal(turns.isDefault, true);
  const host = t.registry.list("core.web.host")[0]!;
  assert.deepEqual([host.source, host.isDefault, host.restart], ["default", true, true]);

  const fields = t.registry.list("core.llm.sources.").map((e) => e.key);
  assert.deepEqual(fields, [
    "core.llm.sources.main.adapter",
    "core.llm.sources.main.api_key",
    "core.llm.sources.main.audio",
    "core.llm.sources.main.base_url",
    "core.llm.sources.main.context_window",
    "core.llm.sources.main.daily_token_cap",
    "core.llm.sources.main.enabled",
    "core.llm.sources.main.max_concurrent",
    "core.llm.sources.main.model",
    "core.llm.sources.main.vision",
  ]);
  assert.equal(t.registry.list("core.llm.sources.main.api_key")[0]?.value, SECRET_MASK);
  assert.ok(t.registry.list().some((e) => e.key === "core.llm.order"));
});

Deno.test("ConfigRegistry.onChange fires after set and unset, never after a refusal", () => {
  using t = openTestRegistry();
  const seen: string[] = [];
  const stop = t.registry.onChange((key) => seen.push(key));
  t.registry.onChange(() => {
    throw new Error("listener broke");
  });
  t.registry.set("core.web.port", 9000);
  assert.throws(() => t.registry.set("core.web.port", "x"), ConfigError);
  t.registry.unset("core.web.port");
  stop();
  t.registry.set("core.web.port", 9001);
  assert.deepEqual(seen, ["core.web.port", "core.web.port"]);
  assert.equal(levelLines(t, "error").length, 3);
  assert.equal(levelLines(t, "error")[0]?.fields.error, "listener broke");
});

Deno.test("ConfigRegistry.unset returns a key to its default", () => {
  using t = openTestRegistry();
  t.registry.set("core.llm.retry_delay_ms", 1500);
  t.registry.unset("core.llm.retry_delay_ms");
  t.registry.unset("core.llm.retry_delay_ms");
  assert.equal(t.registry.get("core.llm.retry_delay_ms"), 500);
  assert.equal(t.store.get("config", "core.llm.retry_delay_ms"), undefined);
});

Deno.test("ConfigRegistry falls back to the default for a hand-corrupted value, with a warning", () => {
  using t = openTestRegistry();
  t.store.set("config", "core.agent.max_tool_turns", '"lots"', 1);
  t.store.set("config", "core.web.port", "{not json", 1);
  assert.equal(t.registry.get("core.agent.max_tool_turns"), 10);
  assert.equal(t.registry.get("core.agent.max_tool_turns"), 10);
  assert.equal(t.registry.get("core.web.port"), 7800);

  const warnings = levelLines(t, "warn");
  assert.equal(warnings.length, 2);
  assert.equal(warnings[0]?.fields.key, "core.agent.max_tool_turns");
  assert.equal(warnings[0]?.fields.reason, 'expected an integer between 1 and 100, got "lots"');
  assert.match(String(warnings[1]?.fields.reason), /^stored text is not valid JSON/);
  assert.equal(t.store.get("config", "core.agent.max_tool_turns")?.value, '"lots"');

  const entry = t.registry.list("core.agent.max_tool_turns")[0]!;
  assert.deepEqual([entry.value, entry.source], [10, "default"]);
  assert.match(entry.problem ?? "", /got "lots"/);

  t.registry.set("core.agent.max_tool_turns", 12);
  assert.equal(t.registry.get("core.agent.max_tool_turns"), 12);
});

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
  assert.equal(levelLines(t, "warn").length, 1);
  assert.deepEqual(levelLines(t, "warn")[0]?.fields.names, ["ghost"]);
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
  const warning = levelLines(t, "warn")[0];
  assert.equal(warning?.msg, "LLM environment shortcut ignored: HOMEAGENT_LLM_MODEL is not set");
  assert.deepEqual(warning?.fields.missing, ["HOMEAGENT_LLM_MODEL"]);

  using quiet = openTestRegistry({ env: { HOMEAGENT_LLM_MODEL: " ", OTHER: "x" } });
  assert.deepEqual(quiet.logger.lines, []);
});

Deno.test("ConfigRegistry warns once about an invalid env value and uses the default", () => {
  using t = openTestRegistry({ env: { ...ENV, HOMEAGENT_LLM_BASE_URL: "localhost:11434" } });
  assert.equal(t.registry.get("core.llm.sources.env.base_url"), "");
  assert.equal(t.registry.llmSources()[0]?.model, "qwen3:8b");
  const warnings = levelLines(t, "warn");
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]?.fields.variable, "HOMEAGENT_LLM_BASE_URL");
});

Deno.test("llmSourcePresets hold base URLs and adapters that the source keys accept", () => {
  using t = openTestRegistry();
  for (const [name, preset] of Object.entries(llmSourcePresets)) {
    t.registry.set(`core.llm.sources.${name}.base_url`, preset.baseUrl);
    t.registry.set(`core.llm.sources.${name}.adapter`, preset.adapter);
  }
  assert.equal(t.registry.allLlmSources().length, 8);
});
