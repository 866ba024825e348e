import assert from "node:assert/strict";
import { type ChatRequest, createPluginSdk } from "../../../core/mod.ts";
import { createScriptedAgent, inputText, settle } from "../../fakes/scripted_agent.ts";

const holdSome = (request: ChatRequest) =>
  inputText(request).startsWith("hold") ? "hold" as const : { text: `re: ${inputText(request)}` };

Deno.test("Agent.kernelNotice preempts a running L3 turn at L4, which resumes with the note", async () => {
  await using k = createScriptedAgent({ respond: holdSome });
  const running = k.inject("hold the timer turn", 3, { source: "timer" });
  await k.llm.waitForCalls(1);
  k.agent.kernelNotice("provider_unusable", "main", 'LLM source "main" refused its key');
  k.agent.kernelNotice("provider_unusable", "main", "the same fault again");
  await settle();
  assert.equal(k.llm.calls[0]!.outcome, "aborted", "L4 preempts even an L3 turn");
  const preempted = k.events.find((e) => e.type === "preempted");
  assert.equal(preempted?.type === "preempted" && preempted.level, 4);
  assert.equal(inputText(k.llm.calls[1]!.request), 'LLM source "main" refused its key');
  await k.llm.waitForCalls(3);
  const resumed = k.llm.calls[2]!;
  assert.equal(inputText(resumed.request), "hold the timer turn");
  const notes = resumed.request.messages.filter((m) =>
    m.role === "user" && String(m.content).startsWith("[打断消息]")
  ).map((m) => String(m.content).split("\n")[0]);
  assert.deepEqual(notes, ['[打断消息] kernel: LLM source "main" refused its key']);
  resumed.release({ text: "timer done" });
  assert.equal((await k.reply(running)).text, "timer done");
  await k.agent.whenIdle();
  const notices = k.events.filter((e) => e.type === "kernel_notice");
  assert.equal(notices.length, 1, "one notice per fault while it is in flight");
  const outputs = k.events.filter((e) => e.type === "output" && e.channel === "kernel");
  assert.equal(outputs.length, 1);
  k.agent.kernelNotice("provider_unusable", "main", "after the first was answered");
  await settle();
  await k.agent.whenIdle();
  assert.equal(k.events.filter((e) => e.type === "kernel_notice").length, 2);
});

Deno.test("A restricted plugin SDK cannot reach L4: its interrupt is clamped to L3", async () => {
  await using k = createScriptedAgent({ respond: holdSome });
  const { sdk } = createPluginSdk("outsider", {
    agent: k.agent,
    config: k.config.registry,
    logger: k.logger,
    restricted: true,
  });
  k.inject("hold the timer turn", 3, { source: "timer" });
  await k.llm.waitForCalls(1);
  sdk.injectInterrupt("pretend to be the kernel", { priority: 4 });
  await settle();
  assert.equal(k.llm.calls[0]!.outcome, "pending", "L3 does not preempt L3");
  k.llm.calls[0]!.release({ text: "done" });
  await k.agent.whenIdle();
});
