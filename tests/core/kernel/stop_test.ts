import assert from "node:assert/strict";
import { type ChatRequest, createPluginSdk, type OutputMessage } from "../../../core/mod.ts";
import { createScriptedAgent, inputText, settle } from "../../fakes/scripted_agent.ts";

const holdSome = (request: ChatRequest) =>
  inputText(request).startsWith("hold") ? "hold" as const : { text: `re: ${inputText(request)}` };

Deno.test("Agent stop cancels the running and suspended turns and short-circuits exactly the queued inputs", async () => {
  await using k = createScriptedAgent({ respond: holdSome });
  const preActions: string[] = [];
  k.agent.stages.register("pre_action", (c) => void preActions.push(c.input.text), {
    plugin: "probe",
  });
  const a = k.inject("hold a", 0);
  await k.llm.waitForCalls(1);
  const b = k.inject("hold b", 1);
  await k.llm.waitForCalls(2);
  await settle();
  const queued = [k.inject("c", 0), k.inject("d", 1)];
  // Injected in the same tick as the stop: not yet looked at by the loop, still counted.
  const inbox = k.inject("e", 0);
  const result = k.agent.stop();
  const after = k.inject("f", 0);
  assert.deepEqual(result, { wasRunning: true, suspended: 1, queued: 3 });
  await k.agent.whenIdle();
  const status = (id: string) => k.replies.get(id)!.map((r) => r.status);
  assert.deepEqual([a, b, ...queued, inbox].map(status), [
    ["stopped"],
    ["stopped"],
    ["stopped"],
    ["stopped"],
    ["stopped"],
  ]);
  assert.equal(k.replies.get(queued[0]!)![0]!.text, "Stopped before it ran.");
  assert.deepEqual(k.replies.get(after), [{
    inputId: after,
    channel: "test",
    text: "re: f",
    status: "ok",
  }]);
  const asked = k.llm.calls.map((c) => inputText(c.request));
  assert.deepEqual(asked, ["hold a", "hold b", "f"], "stopped inputs never reach the model");
  assert.deepEqual(preActions, ["hold a", "hold b", "f"], "they short-circuit at pre_action");
  const onInput = k.events.filter((e) => e.type === "stage" && e.stage === "on_input").length;
  assert.equal(onInput, 6, "every input ran its on_input exactly once");
});

Deno.test("Agent stop with nothing running only marks what waits, and stop twice is harmless", async () => {
  await using k = createScriptedAgent();
  assert.deepEqual(k.agent.stop(), { wasRunning: false, suspended: 0, queued: 0 });
  const id = k.inject("x", 0);
  assert.equal(k.agent.stopCurrentTurn(), false);
  assert.deepEqual(k.agent.stop().queued, 0, "already marked");
  assert.equal((await k.reply(id)).status, "stopped");
  const next = k.inject("y", 0);
  assert.equal((await k.reply(next)).status, "ok");
});

Deno.test("PluginSDK clamps an external plugin's L4 to L3 and it does not preempt an L3", async () => {
  await using k = createScriptedAgent({ respond: holdSome });
  const levels = new Map<string, number>();
  k.agent.stages.register("on_input", (c) => void levels.set(c.input.text, c.input.priority), {
    plugin: "probe",
  });
  const options = { agent: k.agent, config: k.config.registry, logger: k.logger };
  const external = createPluginSdk("ext", { ...options, restricted: true }).sdk;
  const builtin = createPluginSdk("timer", options).sdk;
  k.inject("hold l3", 3);
  await k.llm.waitForCalls(1);
  external.injectInterrupt("ext says L4", { priority: 4 });
  await settle();
  assert.equal(k.llm.calls[0]!.outcome, "pending", "clamped to L3: no preemption of an L3");
  builtin.injectInterrupt("kernel notice", { priority: 4 });
  await k.llm.waitForCalls(2);
  await settle();
  assert.equal(k.llm.calls[0]!.outcome, "aborted", "a built-in L4 preempts");
  await k.llm.waitForCalls(3);
  k.llm.calls[2]!.release({ text: "done" });
  await k.agent.whenIdle();
  assert.deepEqual(Object.fromEntries(levels), {
    "hold l3": 3,
    "kernel notice": 4,
    "ext says L4": 3,
  });
});

Deno.test("Agent consolidation replies go to _consolidation_ and a preempted call is not retried", async () => {
  await using k = createScriptedAgent({ respond: holdSome });
  const sent: OutputMessage[] = [];
  k.agent.outputs.register({
    name: "_consolidation_",
    plugin: "memory",
    caps: 1,
    description: "consolidation results",
    handler: (m) => void sent.push(m),
  });
  k.agent.injectConsolidation("merge these facts");
  k.agent.injectConsolidation("hold distill");
  await k.llm.waitForCalls(2);
  const user = k.inject("owner question", 1);
  assert.equal((await k.reply(user)).text, "re: owner question");
  await k.agent.whenIdle();
  await settle();
  assert.deepEqual(sent.map((m) => m.payload), [
    "re: merge these facts",
    "Cancelled by a higher-priority input",
  ]);
  assert.equal(k.llm.calls.filter((c) => inputText(c.request) === "hold distill").length, 1);
  const outputs = k.events.filter((e) => e.type === "output" && e.channel === "_consolidation_");
  assert.deepEqual(outputs.map((e) => e.type === "output" && e.status), ["ok", "stopped"]);
  assert.equal(k.agent.context.size(), 2, "only the owner's turn entered the context window");
});

Deno.test("Agent cancels one input when its sender's signal aborts: running, queued or already aborted", async () => {
  await using k = createScriptedAgent({ respond: holdSome });
  const running = new AbortController();
  const queued = new AbortController();
  const a = k.inject("hold a", 0, { signal: running.signal });
  await k.llm.waitForCalls(1);
  const b = k.inject("b", 0, { signal: queued.signal });
  const c = k.inject("c", 0);
  queued.abort();
  // The waiting input leaves the queue at once, before the running turn ends.
  assert.deepEqual(k.replies.get(b)!.map((r) => r.status), ["stopped"]);
  assert.equal(k.agent.status().pending, 1);
  running.abort();
  assert.equal((await k.reply(a)).status, "stopped");
  assert.equal((await k.reply(c)).status, "ok", "the others run as usual");
  const gone = AbortSignal.abort();
  const d = k.inject("d", 0, { signal: gone });
  assert.equal((await k.reply(d)).status, "stopped");
  await k.agent.whenIdle();
  assert.deepEqual(k.llm.calls.map((x) => inputText(x.request)), ["hold a", "c"]);
  // A signal that aborts after its turn finished changes nothing.
  const late = new AbortController();
  const e = k.inject("e", 0, { signal: late.signal });
  assert.equal((await k.reply(e)).status, "ok");
  late.abort();
  assert.equal(k.replies.get(e)!.length, 1);
});
