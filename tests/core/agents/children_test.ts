import assert from "node:assert/strict";
import {
  type ChatRequest,
  parseToolArguments,
  runChild,
  SPAWN_CHILD_TOOL,
  spawnChildTool,
} from "../../../core/mod.ts";
import { createScriptedAgent, inputText, type ScriptedAgent } from "../../fakes/scripted_agent.ts";
import type { ScriptedAnswer } from "../../fakes/scripted_llm.ts";

const isChild = (request: ChatRequest) =>
  String(request.messages[0]?.content ?? "").startsWith("You are a child agent");

function attach(k: ScriptedAgent): void {
  k.agent.tools.register(
    spawnChildTool({
      clock: k.clock,
      logger: k.logger,
      config: k.config.registry,
      llm: k.llm,
      tools: () => k.agent.allTools(),
    }),
    "core",
  );
  k.agent.tools.register({
    name: "test_echo",
    description: "echo",
    parameters: { type: "object", properties: {} },
    handler: () => "echoed",
  });
  k.agent.outputs.register({
    name: "qq",
    plugin: "qq",
    caps: 1,
    description: "chat",
    handler: () => {},
  });
}

const spawn = (args: Record<string, unknown>): ScriptedAnswer => ({
  toolCalls: [{ id: "s1", name: SPAWN_CHILD_TOOL, arguments: JSON.stringify(args) }],
});

Deno.test("spawn_child stops a child that keeps calling tools after max_turns model calls", async () => {
  await using k = createScriptedAgent({
    // Every schema sent (tools by need off), so the child's request shows what it was lent.
    config: { "core.tools.all_schemas_window": 1 },
    respond: (request) => {
      if (isChild(request)) {
        return { toolCalls: [{ id: "e", name: "test_echo", arguments: "{}" }] };
      }
      const tool = request.messages.find((m) => m.role === "tool");
      return tool ? { text: `child said: ${tool.content}` } : spawn({ task: "loop", max_turns: 2 });
    },
  });
  attach(k);
  const reply = await k.reply(k.inject("delegate"));
  assert.equal(
    reply.text,
    "child said: I stopped after 2 rounds of tool calls without reaching an answer.",
  );
  const childCalls = k.llm.calls.filter((c) => isChild(c.request));
  assert.equal(childCalls.length, 2);
  const names = childCalls[0]!.request.tools!.map((t) => t.name);
  assert.ok(names.includes("test_echo") && names.includes("output_send__qq"));
  assert.ok(!names.includes(SPAWN_CHILD_TOOL), "a child cannot spawn children");
  assert.equal(inputText(childCalls[0]!.request), "loop");
});

Deno.test("spawn_child returns the child's final text; max_turns defaults to 5, range 1–30", async () => {
  await using k = createScriptedAgent({
    respond: (request) => {
      if (isChild(request) && inputText(request) === "loop") {
        return { toolCalls: [{ id: "e", name: "test_echo", arguments: "{}" }] };
      }
      if (isChild(request)) return { text: `done: ${inputText(request)}` };
      const tool = request.messages.find((m) => m.role === "tool");
      return tool ? { text: tool.content } : spawn({ task: "sum 2+2" });
    },
  });
  attach(k);
  assert.equal((await k.reply(k.inject("go"))).text, "done: sum 2+2");
  const tool = k.agent.tools.get(SPAWN_CHILD_TOOL)!;
  const call = (args: unknown) => ({
    id: "c",
    name: SPAWN_CHILD_TOOL,
    arguments: JSON.stringify(args),
  });
  assert.equal(parseToolArguments(tool, call({ task: "x", max_turns: 31 })).ok, false);
  assert.equal(parseToolArguments(tool, call({ task: "x", max_turns: 0 })).ok, false);
  assert.equal(parseToolArguments(tool, call({ task: "x", max_turns: 30 })).ok, true);
  await assert.rejects(
    runChild("x", { ...deps(k), tools: () => [], maxTurns: 31 }),
    RangeError,
  );
  const before = k.llm.calls.length;
  const looped = await runChild("loop", { ...deps(k), tools: () => k.agent.allTools() });
  assert.match(looped.text, /^I stopped after 5 rounds/);
  assert.equal(k.llm.calls.length - before, 5);
});

Deno.test("spawn_child is cancelled with the parent's turn", async () => {
  await using k = createScriptedAgent({
    respond: (request) => isChild(request) ? "hold" : spawn({ task: "long work" }),
  });
  attach(k);
  const id = k.inject("delegate");
  await k.llm.waitForCalls(2);
  assert.equal(isChild(k.llm.calls[1]!.request), true);
  k.agent.stop();
  await k.llm.waitForAborts(1);
  assert.equal(k.llm.calls[1]!.outcome, "aborted");
  assert.equal((await k.reply(id)).status, "stopped");
  await k.agent.whenIdle();
});

function deps(k: ScriptedAgent) {
  return { clock: k.clock, logger: k.logger, config: k.config.registry, llm: k.llm };
}
