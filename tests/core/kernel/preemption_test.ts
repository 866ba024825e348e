import assert from "node:assert/strict";
import type { ChatRequest, PriorityLevel } from "../../../core/mod.ts";
import { createScriptedAgent, inputText, settle } from "../../fakes/scripted_agent.ts";

const LEVELS: PriorityLevel[] = [0, 1, 2, 3, 4];

/** Hold the calls of inputs whose text starts with "hold", answer the others at once. */
const holdSome = (request: ChatRequest) =>
  inputText(request).startsWith("hold") ? "hold" as const : { text: `re: ${inputText(request)}` };

function interruptNotes(request: ChatRequest): string[] {
  return request.messages.flatMap((m) =>
    m.role === "user" && m.content.startsWith("[打断消息]") ? [m.content.split("\n")[0]!] : []
  );
}

Deno.test("Agent preempts the running turn iff the incoming level is strictly higher (matrix)", async () => {
  for (const running of LEVELS) {
    for (const incoming of LEVELS) {
      const label = `running L${running}, incoming L${incoming}`;
      await using k = createScriptedAgent({ respond: holdSome });
      const a = k.inject("hold running", running);
      await k.llm.waitForCalls(1);
      const b = k.inject("incoming", incoming, { source: "timer" });
      await settle();
      if (incoming > running) {
        assert.equal(k.llm.calls[0]!.outcome, "aborted", label);
        assert.equal((await k.reply(b)).text, "re: incoming", label);
        await k.llm.waitForCalls(3);
        const retried = k.llm.calls[2]!;
        assert.equal(
          inputText(retried.request),
          "hold running",
          `${label}: the cancelled call is retried`,
        );
        assert.deepEqual(interruptNotes(retried.request), ["[打断消息] timer: incoming"], label);
        retried.release({ text: "finished" });
      } else {
        assert.equal(k.llm.calls.length, 1, label);
        assert.equal(k.llm.calls[0]!.outcome, "pending", label);
        k.llm.calls[0]!.release({ text: "finished" });
        assert.equal((await k.reply(b)).text, "re: incoming", label);
      }
      assert.equal((await k.reply(a)).text, "finished", label);
      await k.agent.whenIdle();
      assert.deepEqual([k.replies.get(a)!.length, k.replies.get(b)!.length], [1, 1], label);
      assert.equal(k.agent.status().scheduler.stack.length, 0, label);
    }
  }
});

Deno.test("Agent resumes nested interrupts LIFO and tells each resumed turn what ran", async () => {
  await using k = createScriptedAgent({ respond: holdSome });
  const order: string[] = [];
  const ids: string[] = [];
  for (const level of LEVELS.slice(0, 4)) {
    ids.push(k.inject(`hold L${level}`, level, {
      source: `s${level}`,
      onReply: () => void order.push(`L${level}`),
    }));
    await k.llm.waitForCalls(ids.length);
  }
  await settle();
  assert.deepEqual(k.agent.status().scheduler.stack.map((t) => t.level), [0, 1, 2]);
  assert.deepEqual(k.llm.calls.slice(0, 3).map((c) => c.outcome), [
    "aborted",
    "aborted",
    "aborted",
  ]);
  k.llm.calls[3]!.release({ text: "L3 done" });
  for (let n = 5; n <= 7; n++) {
    await k.llm.waitForCalls(n);
    k.llm.calls[n - 1]!.release({ text: "resumed done" });
  }
  await k.agent.whenIdle();
  assert.deepEqual(order, ["L3", "L2", "L1", "L0"]);
  const notes = k.llm.calls.slice(4).map((c) => [inputText(c.request), interruptNotes(c.request)]);
  assert.deepEqual(notes, [
    ["hold L2", ["[打断消息] s3: hold L3"]],
    ["hold L1", ["[打断消息] s3: hold L3", "[打断消息] s2: hold L2"]],
    ["hold L0", ["[打断消息] s3: hold L3", "[打断消息] s2: hold L2", "[打断消息] s1: hold L1"]],
  ]);
  assert.equal(ids.every((id) => k.replies.get(id)?.length === 1), true);
  const preempted = k.events.filter((e) => e.type === "preempted").length;
  const resumed = k.events.filter((e) => e.type === "resumed").length;
  assert.deepEqual([preempted, resumed], [3, 3]);
});

Deno.test("Agent holds back preemption during the cooldown and preempts when it ends", async () => {
  await using k = createScriptedAgent({
    respond: holdSome,
    config: { "core.agent.preempt_cooldown_ms": 2000 },
  });
  const a = k.inject("hold a", 0);
  await k.llm.waitForCalls(1);
  k.inject("b", 1);
  await k.llm.waitForCalls(3); // a aborted, b answered, a retried (held)
  await settle();
  k.inject("c", 3);
  await settle();
  assert.equal(k.llm.calls[2]!.outcome, "pending", "a just resumed: cooling down");
  assert.equal(k.llm.calls.length, 3);
  await k.clock.tick(1999);
  assert.equal(k.llm.calls[2]!.outcome, "pending");
  await k.clock.tick(1);
  await k.llm.waitForCalls(5);
  assert.equal(k.llm.calls[2]!.outcome, "aborted", "the cooldown timer let c preempt");
  assert.equal(inputText(k.llm.calls[3]!.request), "c");
  k.llm.calls[4]!.release({ text: "a done" });
  assert.equal((await k.reply(a)).text, "a done");
  assert.equal(k.clock.pending, 0, "no timer left behind");
});

Deno.test("Agent keeps a tool running while its turn is preempted", async () => {
  const tool = Promise.withResolvers<string>();
  let aborted = false;
  await using k = createScriptedAgent({
    respond: (request, index) =>
      index === 0
        ? { toolCalls: [{ id: "c1", name: "test_slow", arguments: "{}" }] }
        : { text: `re: ${inputText(request)}` },
  });
  k.agent.tools.register({
    name: "test_slow",
    description: "slow",
    parameters: { type: "object", properties: {} },
    handler: (_args, ctx) => {
      ctx.signal.addEventListener("abort", () => void (aborted = true));
      return tool.promise;
    },
  });
  const a = k.inject("use the tool", 0);
  await k.llm.waitForCalls(1);
  await settle();
  const b = k.inject("urgent", 2, { source: "timer" });
  assert.equal((await k.reply(b)).text, "re: urgent", "the interrupt ran while the tool ran");
  assert.equal(aborted, false);
  tool.resolve("tool output");
  const answer = await k.reply(a);
  assert.equal(answer.text, "re: use the tool");
  const last = k.llm.calls.at(-1)!.request;
  assert.deepEqual(interruptNotes(last), ["[打断消息] timer: urgent"]);
  assert.ok(last.messages.some((m) => m.role === "tool" && m.content === "tool output"));
});

Deno.test("Agent refuses input beyond the queue capacity with a logged refusal reply", async () => {
  await using k = createScriptedAgent({
    respond: holdSome,
    config: { "core.agent.queue_capacity": 3 },
  });
  k.inject("hold first", 0);
  await k.llm.waitForCalls(1);
  const queued = [1, 2, 3].map((i) => k.inject(`q${i}`, 0));
  const refused = k.inject("one too many", 2);
  const reply = await k.reply(refused);
  assert.equal(reply.status, "refused");
  assert.match(reply.text, /queue is full \(3 waiting\)/);
  assert.equal(k.logger.find("Input refused")[0]?.fields.inputId, refused);
  assert.equal(k.agent.status().pending, 3);
  k.llm.calls[0]!.release({ text: "ok" });
  await k.agent.whenIdle();
  assert.ok(queued.every((id) => k.replies.get(id)?.[0]?.status === "ok"));
});

Deno.test("Agent lets triage take queued plain inputs and reply to them once", async () => {
  await using k = createScriptedAgent({ respond: holdSome });
  k.inject("hold busy", 0);
  await k.llm.waitForCalls(1);
  const plain = [1, 2, 3].map((i) => k.inject(`question ${i}`, 0, { source: "qq" }));
  k.inject("timer", 3);
  assert.deepEqual(k.agent.pendingPlain().map((i) => i.id), plain);
  assert.ok(k.agent.status().scheduler.busySince !== undefined);
  const taken = k.agent.takePending([plain[1]!]);
  assert.equal(taken.length, 1);
  const reply = {
    inputId: plain[1]!,
    channel: "qq",
    text: "busy, please wait",
    status: "ok" as const,
  };
  taken[0]!.reply(reply);
  taken[0]!.reply({ ...reply, text: "twice" });
  assert.deepEqual(k.replies.get(plain[1]!), [reply]);
  k.llm.calls[0]!.release({ text: "ok" });
  await k.agent.whenIdle();
  assert.equal(k.llm.calls.filter((c) => inputText(c.request) === "question 2").length, 0);
});
