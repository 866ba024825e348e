import assert from "node:assert/strict";
import { EPHEMERAL_META, type KernelEvent } from "../../../core/mod.ts";
import { createScriptedAgent, inputText, settle } from "../../fakes/scripted_agent.ts";

Deno.test("Agent publishes each owner input before its turn's events, with where it came from", async () => {
  await using k = createScriptedAgent({ respond: (r) => ({ text: `re: ${inputText(r)}` }) });
  const id = k.inject("hello", 0, { source: "cli", channel: "cli", sender: "me" });
  await k.reply(id);
  const mine = k.events.filter((e) => "turnId" in e && e.turnId === id);
  assert.deepEqual(mine[0], {
    type: "input",
    turnId: id,
    source: "cli",
    channel: "cli",
    sender: "me",
    text: "hello",
    level: 0,
    receivedAt: (mine[0] as Extract<KernelEvent, { type: "input" }>).receivedAt,
  });
  assert.equal(mine.at(-1)!.type, "output");
  const timer = k.inject("timer: tea", 3, { source: "timer", channel: "web" });
  await k.reply(timer);
  const input = k.events.find((e) => e.type === "input" && e.turnId === timer);
  assert.deepEqual(input?.type === "input" && [input.level, input.channel], [3, "web"]);
});

Deno.test("Agent publishes no input event for consolidation work or an ephemeral input", async () => {
  await using k = createScriptedAgent({ respond: () => ({ text: "ok" }) });
  k.agent.injectConsolidation("merge these memories");
  const ephemeral = k.inject("from the openai endpoint", 0, { meta: { [EPHEMERAL_META]: true } });
  await k.reply(ephemeral);
  await settle();
  await k.agent.whenIdle();
  assert.deepEqual(k.events.filter((e) => e.type === "input"), []);
});

Deno.test("Agent publishes a refused input too, followed by its refused output", async () => {
  await using k = createScriptedAgent({ respond: () => ({ text: "ok" }) });
  await k.agent.close();
  const id = k.inject("too late", 0);
  const reply = await k.reply(id);
  assert.equal(reply.status, "refused");
  const types = k.events.filter((e) => "turnId" in e && e.turnId === id).map((e) => e.type);
  assert.deepEqual(types, ["input", "output"]);
});
