import assert from "node:assert/strict";
import { createPluginSdk } from "../../../../core/mod.ts";
import {
  createHealthcheckPlugin,
  registerHealthcheckSettings,
} from "../../../../plugins/builtin/healthcheck/mod.ts";
import { createScriptedAgent, inputText, settle } from "../../../fakes/scripted_agent.ts";

Deno.test("healthcheck runs on the clock and tells the owner at L2 only when something changed", async () => {
  await using k = createScriptedAgent({
    respond: (request) => inputText(request).startsWith("hold") ? "hold" : { text: "told" },
  });
  registerHealthcheckSettings(k.config.registry);
  const plugins = [{ name: "qq", state: "running" }];
  const plugin = createHealthcheckPlugin({
    clock: k.clock,
    probes: { plugins: () => plugins, toolCount: () => 3 },
  });
  const { sdk, detach } = createPluginSdk("healthcheck", {
    agent: k.agent,
    config: k.config.registry,
    logger: k.logger,
  });
  await plugin.start(sdk);
  const told = () =>
    k.llm.calls.map((c) => inputText(c.request)).filter((t) => t.startsWith("[healthcheck]"));
  const run = async (ms: number) => {
    k.clock.advance(ms);
    for (let i = 0; i < 5; i++) await settle();
    await k.agent.whenIdle();
  };
  await run(60_000);
  assert.deepEqual(told(), [], "all well: no noise");

  plugins[0] = { name: "qq", state: "failed", error: "Gave up after 4 crashes" } as never;
  const l1 = k.inject("hold a chat message", 1, { source: "qq" });
  await k.llm.waitForCalls(1);
  k.clock.advance(30 * 60_000);
  for (let i = 0; i < 5; i++) await settle();
  assert.equal(k.llm.calls[0]!.outcome, "aborted", "the L2 finding preempts an L1 turn");
  await k.llm.waitForCalls(3);
  k.llm.calls[2]!.release({ text: "chat done" });
  assert.equal((await k.reply(l1)).text, "chat done");
  await k.agent.whenIdle();
  assert.equal(told().length, 1);
  assert.match(
    told()[0]!,
    /1 problem\(s\).*\nfail plugins: qq: failed \(Gave up after 4 crashes\)/s,
  );

  await run(30 * 60_000);
  assert.equal(told().length, 1, "the same problem is not told twice");
  plugins[0] = { name: "qq", state: "running" };
  await run(30 * 60_000);
  assert.deepEqual(told().slice(1), ["[healthcheck] All checks pass again."]);

  k.config.registry.set("plugin.healthcheck.interval_min", 0);
  await run(30 * 60_000);
  assert.equal(k.clock.pending, 0, "interval 0 turns the runs off");
  await plugin.stop();
  detach();
});
