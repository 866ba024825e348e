import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain } from "../../../fakes/daemon.ts";
import { startPluginDaemon } from "../_daemon.ts";

Deno.test("healthcheck: the daemon's model checks everything, reports a tool and reads timings", async () => {
  await using d = await startPluginDaemon();
  const [first, reported, second, perf] = await d.toolRun([
    { name: "healthcheck", arguments: {} },
    {
      name: "healthcheck_report",
      arguments: { tool: "terminal_read", status: "fail", detail: "returns nothing" },
    },
    { name: "healthcheck", arguments: {} },
    { name: "healthcheck_perf", arguments: {} },
  ]);
  assert.match(first!, /^ok +kernel +busy, 0 waiting of 256, 0 suspended/m);
  assert.match(first!, /^ok +plugins +healthcheck: running$/m);
  assert.match(first!, /^ok +plugins +agentcli: running$/m);
  assert.match(first!, /^ok +tools +\d+ tools$/m);
  assert.match(first!, /^ok +memory +tiers: \d+ context events, \d+ documents/m);
  assert.match(first!, /^ok +llm +env \(fake-model\): ok$/m);
  assert.match(first!, /^(ok|warn) +disk +.* free of .* at /m);
  assert.match(first!, /\n\d+ ok, \d+ warn, 0 fail$/);
  assert.equal(reported, "Recorded: terminal_read fail");
  assert.match(second!, /^fail +tools +terminal_read: returns nothing \(reported\)$/m);
  assert.match(perf!, /^llm env: [34] rounds, p50 \d+ ms/m);
  assert.match(perf!, /^tool healthcheck: 2 calls, 0 failed, p50 \d+ ms/m);
  const status = JSON.parse((await runMain(["status", "--home", d.home])).stdout);
  const plugin = status.plugins.find((p: { name: string }) => p.name === "healthcheck");
  assert.deepEqual(plugin.tools.sort(), ["healthcheck", "healthcheck_perf", "healthcheck_report"]);
});

Deno.test("homeagent doctor checks a home offline and exits 1 on a failed check", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-doctor-" });
  try {
    const set = await runMain([
      "config",
      "set",
      "core.llm.sources.main.base_url",
      "http://127.0.0.1:9/v1",
      "--home",
      home,
    ]);
    assert.equal(set.code, 0, set.stderr);
    await runMain(["config", "set", "core.llm.sources.main.model", "m", "--home", home]);
    const healthy = await runMain(["doctor", "--home", home]);
    assert.equal(healthy.code, 0, healthy.stdout + healthy.stderr);
    assert.match(healthy.stdout, /^skip +kernel +no daemon/m);
    assert.match(healthy.stdout, /^ok +memory +config\.db: [\d.]+ MB, intact$/m);
    assert.match(healthy.stdout, /^ok +memory +memory\/graph\.db: not created yet$/m);
    assert.match(healthy.stdout, /^ok +llm +main \(m\): configured$/m);
    assert.match(healthy.stdout, /^(ok|warn) +disk +/m);

    await Deno.mkdir(join(home, "memory"), { recursive: true });
    await Deno.writeTextFile(join(home, "memory", "graph.db"), "not a database ".repeat(100));
    await Deno.mkdir(join(home, "plugins", "broken"), { recursive: true });
    await Deno.writeTextFile(join(home, "plugins", "broken", "plugin.json"), "{");
    const sick = await runMain(["doctor", "--home", home]);
    assert.equal(sick.code, 1);
    assert.match(
      sick.stdout,
      /^fail +memory +memory\/graph\.db: cannot be read as a SQLite database/m,
    );
    assert.match(sick.stdout, /^fail +plugins +broken: failed \(/m);
    assert.match(sick.stdout, /\n\d+ ok, \d+ warn, 2 fail\n$/);
    const untouched = await Deno.readTextFile(join(home, "memory", "graph.db"));
    assert.equal(untouched, "not a database ".repeat(100), "doctor changes nothing");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
