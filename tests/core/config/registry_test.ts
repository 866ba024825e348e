import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../../../core/errors.ts";
import { SECRET_MASK } from "../../../core/config/types.ts";
import { openTestRegistry } from "../../fakes/config.ts";

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
    "core.llm.sources.main.price_input",
    "core.llm.sources.main.price_output",
    "core.llm.sources.main.vision",
  ]);
  assert.equal(t.registry.list("core.llm.sources.main.api_key")[0]?.value, SECRET_MASK);
  assert.ok(t.registry.list().some((e) => e.key === "core.llm.order"));
});

Deno.test("ConfigRegistry.list under a prefix is the full list's keys under it", () => {
  using t = openTestRegistry();
  t.registry.define({
    key: "core.probe.*.enabled",
    schema: z.boolean(),
    default: true,
    description: "",
  });
  t.registry.set("core.llm.sources.main.model", "m");
  t.registry.set("core.llm.sources.spare.model", "n");
  t.registry.set("core.probe.files.enabled", false);
  const all = t.registry.list().map((e) => e.key);
  for (
    const prefix of [
      "",
      "c",
      "core.",
      "core.llm.sour",
      "core.llm.sources.",
      "core.llm.sources.ma",
      "core.llm.sources.spare.model",
      "core.web.",
      "core.probe.",
      "core.probe.files.",
      "core.probe.files.enabled",
      "core.probe.other.",
      "nothing.",
    ]
  ) {
    const keys = t.registry.list(prefix).map((e) => e.key);
    assert.deepEqual(keys, all.filter((key) => key.startsWith(prefix)), prefix);
  }
});

Deno.test("ConfigRegistry.list reads no stored keys for patterns outside the prefix", () => {
  using t = openTestRegistry();
  t.registry.set("core.llm.sources.main.model", "m");
  const list = t.store.list.bind(t.store);
  const read: string[] = [];
  t.store.list = (table, prefix) => {
    read.push(prefix ?? "");
    return list(table, prefix);
  };
  assert.ok(t.registry.list("core.web.").length > 0);
  assert.deepEqual(read.filter((prefix) => prefix.startsWith("core.llm.")), []);
  assert.equal(t.registry.list("core.llm.sources.").length, 12);
  assert.ok(read.some((prefix) => prefix === "core.llm.sources."));
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
  assert.equal(t.logger.at("error").length, 3);
  assert.equal(t.logger.at("error")[0]?.fields.error, "listener broke");
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

  const warnings = t.logger.at("warn");
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
