import assert from "node:assert/strict";
import { runMain } from "../../../fakes/daemon.ts";
import { startPluginDaemon } from "../_daemon.ts";

const SECRET = "sk-test-never-shown-4242";

Deno.test("cfgmgr reads and changes settings through the registry's validation, secrets masked", async () => {
  await using d = await startPluginDaemon({ env: { HOMEAGENT_LLM_API_KEY: SECRET } });
  const stored = await runMain([
    "config",
    "set",
    "core.llm.sources.spare.api_key",
    "sk-spare-9999",
    "--home",
    d.home,
  ]);
  assert.equal(stored.code, 0, stored.stderr);
  const results = await d.toolRun([
    { name: "config_get", arguments: { key: "core.llm.sources.env.api_key" } },
    { name: "config_list_keys", arguments: { prefix: "core.llm.sources" } },
    { name: "config_set", arguments: { key: "core.agent.max_context_size", value: "lots" } },
    { name: "config_set", arguments: { key: "core.agent.max_context_size", value: 30 } },
    { name: "config_set", arguments: { key: "core.plugins.allow_native", value: true } },
    { name: "config_set", arguments: { key: "plugin.cfgmgr.protected_keys", value: [] } },
    {
      name: "config_batch_set",
      arguments: { values: { "core.agent.stream": false, "core.agent.queue_capacity": -1 } },
    },
    { name: "config_batch_set", arguments: { values: { "core.agent.tool_timeout_ms": 5000 } } },
  ]);
  const [get, list, bad, good, guarded, self, batchBad, batchGood] = results;
  const [defs, plugins, unknown, retention] = await d.toolRun([
    { name: "config_get_defs", arguments: { prefix: "plugin.cfgmgr" } },
    { name: "config_list_plugins", arguments: {} },
    { name: "config_get", arguments: { key: "no.such.key" } },
    { name: "config_set", arguments: { key: "plugin.changes.keep", value: 1 } },
  ]);
  assert.match(retention!, /^Error: "plugin\.changes\.keep" is protected \(plugin\.changes\.\*\)/);
  // Even when the owner empties the list, the approval policies stay the owner's.
  const emptied = await runMain([
    "config",
    "set",
    "plugin.cfgmgr.protected_keys",
    "[]",
    "--home",
    d.home,
  ]);
  assert.equal(emptied.code, 0, emptied.stderr);
  const [cmdPolicy, terminalPolicy, retentionNow] = await d.toolRun([
    { name: "config_set", arguments: { key: "plugin.cmd.policy", value: "allow" } },
    { name: "config_batch_set", arguments: { values: { "plugin.agentcli.policy": "allow" } } },
    { name: "config_set", arguments: { key: "plugin.changes.keep", value: 300 } },
  ]);
  assert.match(cmdPolicy!, /^Error: "plugin\.cmd\.policy" is protected \(plugin\.cmd\.policy\)/);
  assert.match(
    terminalPolicy!,
    /^Error: Nothing was changed: "plugin\.agentcli\.policy" is protected/,
  );
  assert.equal(retentionNow, "Set plugin.changes.keep = 300");
  const entry = JSON.parse(get!);
  assert.equal(entry.value, "********");
  assert.equal(entry.source, "env");
  assert.equal(entry.secret, true);
  assert.match(list!, /core\.llm\.sources\.spare\.api_key = "\*\*\*\*\*\*\*\*" \(stored\)/);
  assert.match(list!, /core\.llm\.sources\.env\.model = "fake-model" \(env\)/);
  assert.match(bad!, /^Error: Cannot set "core\.agent\.max_context_size": .*integer/);
  assert.equal(good, "Set core.agent.max_context_size = 30");
  assert.match(guarded!, /^Error: "core\.plugins\.allow_native" is protected/);
  assert.match(self!, /^Error: "plugin\.cfgmgr\.protected_keys" is protected/);
  assert.match(batchBad!, /^Error: Nothing was changed: Cannot set "core\.agent\.queue_capacity"/);
  assert.equal(batchGood, "Set core.agent.tool_timeout_ms");
  assert.match(defs!, /plugin\.cfgmgr\.protected_keys: a JSON array, default \["core\.web\.\*"/);
  assert.match(plugins!, /^core: \d+ settings\n/);
  assert.match(plugins!, /plugin\.cfgmgr \(running\): 1 settings/);
  assert.match(unknown!, /^Error: Invalid config key "no\.such\.key"/);

  // What the model saw never held a secret: the env key went only into the Authorization header.
  for (const request of d.server.requests) {
    const body = JSON.stringify(request.body);
    assert.equal(body.includes(SECRET), false);
    assert.equal(body.includes("sk-spare-9999"), false);
  }
  const value = async (key: string) =>
    (await runMain(["config", "get", key, "--home", d.home])).stdout.trim();
  assert.equal(await value("core.agent.max_context_size"), "30");
  assert.equal(await value("core.agent.stream"), "true", "the refused batch left stream alone");
  assert.equal(await value("core.agent.tool_timeout_ms"), "5000");
  assert.equal(await value("core.plugins.allow_native"), "false");
  assert.equal(await value("plugin.cmd.policy"), '"ask"');
  assert.equal(await value("plugin.agentcli.policy"), '"ask"');

  const status = JSON.parse((await runMain(["status", "--home", d.home])).stdout);
  const cfgmgr = status.plugins.find((p: { name: string }) => p.name === "cfgmgr");
  assert.equal(cfgmgr.state, "running");
  assert.deepEqual(cfgmgr.tools.sort(), [
    "config_batch_set",
    "config_get",
    "config_get_defs",
    "config_list_keys",
    "config_list_plugins",
    "config_set",
  ]);
});

Deno.test("main.ts config get masks a secret that config list masks, and --reveal shows it", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-config-get-" });
  try {
    const key = "core.llm.sources.main.api_key";
    const set = await runMain(["config", "set", key, "sk-abc-123", "--home", home]);
    assert.equal(set.code, 0, set.stderr);
    const masked = await runMain(["config", "get", key, "--home", home]);
    assert.equal(masked.code, 0, masked.stderr);
    assert.equal(masked.stdout, '"********"\n');
    const list = await runMain(["config", "list", "core.llm.sources.main", "--home", home]);
    assert.match(list.stdout, /api_key = "\*\*\*\*\*\*\*\*"/);
    const revealed = await runMain(["config", "get", key, "--reveal", "--home", home]);
    assert.equal(revealed.stdout, '"sk-abc-123"\n');
    const plain = await runMain(["config", "get", "core.agent.max_tool_turns", "--home", home]);
    assert.equal(plain.stdout, "10\n");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
