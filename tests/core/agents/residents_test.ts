import assert from "node:assert/strict";
import {
  type ChatRequest,
  InMemoryGraph,
  parseToolArguments,
  RESIDENT_CHANNEL,
  residentAgentsTool,
  ResidentError,
  ResidentPool,
  type ResidentTask,
} from "../../../core/mod.ts";
import {
  createScriptedAgent,
  inputText,
  type ScriptedAgent,
  settle,
} from "../../fakes/scripted_agent.ts";
import type { ScriptedAnswer } from "../../fakes/scripted_llm.ts";

const systemOf = (request: ChatRequest) => String(request.messages[0]?.content ?? "");
const isResident = (request: ChatRequest, name: string) =>
  systemOf(request).startsWith(`You are "${name}", a resident`);
const lastTool = (request: ChatRequest) =>
  request.messages.filter((m) => m.role === "tool").at(-1)?.content;

/** Residents answer "<name> did: <task>" (holding tasks that start with "hold"); the parent echoes. */
function respond(request: ChatRequest): ScriptedAnswer | "hold" {
  const text = inputText(request);
  if (systemOf(request).startsWith("Summarise this working log")) return { text: "the summary" };
  const resident = /^You are "([a-z]+)", a resident/.exec(systemOf(request))?.[1];
  if (!resident) return text.startsWith("hold") ? "hold" : { text: `parent: ${text.slice(0, 40)}` };
  return text.startsWith("hold") ? "hold" : { text: `${resident} did: ${text}` };
}

function pool(k: ScriptedAgent, graph = new InMemoryGraph()) {
  const settled = new Map<string, ResidentTask[]>();
  const residents = new ResidentPool({
    parent: k.agent,
    clock: k.clock,
    logger: k.logger,
    config: k.config.registry,
    llm: k.llm,
    graph,
    onTaskSettled: (task) => settled.set(task.id, [...settled.get(task.id) ?? [], task]),
  });
  return { residents, settled, graph };
}

const parentInputs = (k: ScriptedAgent) =>
  k.llm.calls.filter((c) => !/^You are "[a-z]+", a resident/.test(systemOf(c.request)))
    .filter((c) => !systemOf(c.request).startsWith("Summarise")).map((c) => inputText(c.request));

Deno.test("ResidentPool runs a resident through create, send, inspect, compress and destroy (keep)", async () => {
  await using k = createScriptedAgent({ respond });
  const { residents, settled } = pool(k);
  assert.equal(residents.create("scout", "Scout the news.").name, "scout");
  assert.deepEqual(residents.list().map((r) => [r.name, r.state]), [["scout", "idle"]]);

  const first = residents.send("scout", "task one");
  await k.agent.whenIdle();
  await settle();
  assert.equal(settled.get(first.id)?.[0]?.outcome, "answered");
  assert.equal(settled.get(first.id)?.[0]?.reply?.text, "scout did: task one");
  const report = parentInputs(k).find((t) => t.startsWith("[resident report]"));
  assert.match(report ?? "", /^\[resident report\] "scout" finished task .* \(ok\)/);
  assert.match(report ?? "", /Result: scout did: task one/);
  assert.ok(k.events.some((e) => e.type === "output" && e.channel === RESIDENT_CHANNEL));

  const held = residents.send("scout", "hold a");
  const b = residents.send("scout", "b");
  const c = residents.send("scout", "c");
  await k.llm.waitForCalls(k.llm.calls.length + 1);
  await settle();
  const seen = residents.inspect("scout");
  assert.equal(seen.state, "busy");
  assert.deepEqual(seen.tasks, [
    { id: held.id, text: "hold a", state: "running" },
    { id: b.id, text: "b", state: "queued" },
    { id: c.id, text: "c", state: "queued" },
  ]);

  const compressed = await residents.compress("scout", { keep: 1 });
  assert.deepEqual(compressed, { before: 3, after: 2, summarised: true });
  assert.deepEqual(residents.inspect("scout").context, ["the summary", "hold a"]);

  const ended = await residents.destroy("scout");
  assert.deepEqual(ended.handedBack, [held.id, b.id, c.id]);
  assert.deepEqual(ended.dropped, []);
  assert.equal(
    k.llm.calls.find((call) => inputText(call.request) === "hold a")?.outcome,
    "aborted",
  );
  await k.agent.whenIdle();
  for (const task of [held, b, c]) {
    assert.equal(settled.get(task.id)?.length, 1, `one outcome for ${task.text}`);
    assert.equal(settled.get(task.id)?.[0]?.outcome, "handed_back");
    assert.match(settled.get(task.id)![0]!.reply!.text, /^parent: \[task handed back by resident/);
  }
  assert.equal(settled.get(first.id)?.length, 1);
  assert.deepEqual(residents.list(), []);
  assert.throws(() => residents.send("scout", "late"), ResidentError);
});

Deno.test("ResidentPool isolates a resident's graph writes until reclaim and drops residuals one by one", async () => {
  await using k = createScriptedAgent({
    respond: (request) => {
      if (!isResident(request, "librarian")) return respond(request);
      const text = inputText(request);
      const tool = lastTool(request);
      if (tool !== undefined) return { text: `tool said: ${tool}` };
      if (text === "remember") {
        const triples = [{ subject: "Alice", predicate: "likes", object: "green tea" }];
        return {
          toolCalls: [{ id: "c1", name: "memory_commit", arguments: JSON.stringify({ triples }) }],
        };
      }
      if (text === "recall") {
        const args = JSON.stringify({ keywords: ["Alice"] });
        return { toolCalls: [{ id: "c2", name: "memory_recall", arguments: args }] };
      }
      return respond(request);
    },
  });
  const main = new InMemoryGraph();
  await main.commit([{ subject: "Alice", predicate: "lives_in", object: "Paris" }]);
  const { residents, settled } = pool(k, main);
  residents.create("librarian", "Keep notes.");

  residents.send("librarian", "remember");
  await k.agent.whenIdle();
  await settle();
  const mainFacts = async () =>
    (await main.recall({ keywords: ["Alice"] })).relations.map((r) => r.type).sort();
  assert.deepEqual(await mainFacts(), ["lives_in"], "the resident's write is not in main");
  assert.equal(residents.list()[0]?.pendingTriples, 1);

  const recall = residents.send("librarian", "recall");
  await k.agent.whenIdle();
  await settle();
  const recalled = settled.get(recall.id)?.[0]?.reply?.text ?? "";
  assert.match(recalled, /Alice —likes→ green tea/, "reads see its own writes");
  assert.match(recalled, /Alice —lives_in→ Paris/, "and the main graph");

  const held = residents.send("librarian", "hold x");
  const queued = residents.send("librarian", "y");
  await k.llm.waitForCalls(k.llm.calls.length + 1);
  const before = parentInputs(k).length;
  const ended = await residents.reclaim("librarian", "drop");
  assert.deepEqual(ended, {
    name: "librarian",
    residual: "drop",
    handedBack: [],
    dropped: [held.id, queued.id],
    committed: 1,
  });
  assert.deepEqual(await mainFacts(), ["likes", "lives_in"], "reclaim committed temp into main");
  assert.deepEqual(
    k.logger.find("Resident task dropped").map((l) => l.fields.taskId),
    [held.id, queued.id],
  );
  for (const task of [held, queued]) {
    assert.equal(settled.get(task.id)?.length, 1);
    assert.equal(settled.get(task.id)?.[0]?.outcome, "dropped");
    assert.equal(settled.get(task.id)?.[0]?.reply?.status, "stopped");
  }
  await k.agent.whenIdle();
  assert.equal(parentInputs(k).length, before, "dropped tasks never reach the parent");
});

Deno.test("ResidentPool reports a finished task to the busy parent as an L3 interrupt", async () => {
  await using k = createScriptedAgent({ respond });
  const { residents } = pool(k);
  residents.create("scout", "Scout.");
  const main = k.inject("hold the main job", 0);
  await k.llm.waitForCalls(1);
  residents.send("scout", "look around");
  await k.llm.waitForCalls(4); // main, scout, the report's turn, main retried
  const preempted = k.events.find((e) => e.type === "preempted");
  assert.ok(preempted && preempted.type === "preempted");
  assert.equal(preempted.turnId, main);
  assert.equal(preempted.level, 3);
  assert.equal(k.llm.calls[0]!.outcome, "aborted");
  assert.match(inputText(k.llm.calls[2]!.request), /^\[resident report\] "scout" finished task/);
  const retried = k.llm.calls[3]!.request;
  assert.ok(
    retried.messages.some((m) =>
      m.role === "user" && m.content.startsWith("[打断消息] resident: [resident report]")
    ),
  );
  k.llm.calls[3]!.release({ text: "main done" });
  assert.equal((await k.reply(main)).text, "main done");
  await residents.close();
});

Deno.test("resident_agents validates its arguments and turns refusals into error results", async () => {
  await using k = createScriptedAgent({ respond });
  const { residents } = pool(k);
  const tool = residentAgentsTool(residents);
  const ctx = { signal: new AbortController().signal, turnId: "t", callId: "c" };
  const call = (args: unknown) => ({ id: "c", name: tool.name, arguments: JSON.stringify(args) });
  assert.equal(parseToolArguments(tool, call({ action: "fly" })).ok, false);
  assert.equal(parseToolArguments(tool, call({ action: "create", name: "Bad Name" })).ok, false);
  assert.deepEqual(await tool.handler({ action: "send", name: "x" }, ctx), {
    content: 'Action "send" needs "text"',
    isError: true,
  });
  assert.deepEqual(await tool.handler({ action: "inspect", name: "ghost" }, ctx), {
    content: 'No resident "ghost" (residents: none)',
    isError: true,
  });
  const created = await tool.handler({ action: "create", name: "ann", instructions: "Help." }, ctx);
  assert.match(JSON.stringify(created), /\\"name\\":\\"ann\\"/);
  assert.deepEqual(await tool.handler({ action: "create", name: "ann", instructions: "x" }, ctx), {
    content: 'Resident "ann" already exists',
    isError: true,
  });
  const listed = await tool.handler({ action: "list" }, ctx);
  assert.equal(typeof listed === "object" && JSON.parse(listed.content).residents.length, 1);
  await residents.close();
});

Deno.test("resident_agents works end to end when the parent model calls it", async () => {
  let step = 0;
  await using k = createScriptedAgent({
    respond: (request) => {
      if (isResident(request, "helper")) return { text: "helper did it" };
      const text = inputText(request);
      if (text === "delegate" && step === 0) {
        step++;
        const args = { action: "create", name: "helper", instructions: "Do small jobs." };
        return {
          toolCalls: [{ id: "t1", name: "resident_agents", arguments: JSON.stringify(args) }],
        };
      }
      if (text === "delegate" && step === 1) {
        step++;
        const args = { action: "send", name: "helper", text: "water the plants" };
        return {
          toolCalls: [{ id: "t2", name: "resident_agents", arguments: JSON.stringify(args) }],
        };
      }
      return { text: text === "delegate" ? "delegated" : "noted" };
    },
  });
  const { residents, settled } = pool(k);
  k.agent.tools.register(residentAgentsTool(residents), "core");
  assert.equal((await k.reply(k.inject("delegate"))).text, "delegated");
  await k.agent.whenIdle();
  await settle();
  await k.agent.whenIdle();
  assert.equal([...settled.values()].flat()[0]?.reply?.text, "helper did it");
  assert.ok(parentInputs(k).some((t) => t.includes('"helper" finished task')));
  await residents.close();
});

Deno.test("ResidentPool lends a resident parent tools except spawning, graph and channel tools", async () => {
  // Every schema sent (tools by need off), so the resident's request shows what it was lent.
  await using k = createScriptedAgent({ respond, config: { "core.tools.all_schemas_window": 1 } });
  const tool = (name: string) => ({
    name,
    plugin: "core",
    description: name,
    parameters: { type: "object", properties: {} },
    handler: () => "ok",
  });
  k.agent.outputs.register({
    name: "qq",
    plugin: "qq",
    caps: 1,
    description: "chat",
    handler() {},
  });
  const borrowed = ["test_ping", "spawn_child", "resident_agents", "memory_merge", "person_relate"];
  const residents = new ResidentPool({
    parent: k.agent,
    clock: k.clock,
    logger: k.logger,
    config: k.config.registry,
    llm: k.llm,
    graph: new InMemoryGraph(),
    parentTools: () => [...borrowed.map(tool), ...k.agent.allTools()],
  });
  residents.create("scout", "Scout.");
  residents.send("scout", "look");
  await k.llm.waitForCalls(1);
  const names = k.llm.calls[0]!.request.tools!.map((t) => t.name).sort();
  assert.deepEqual(names, [
    "memory_commit",
    "memory_recall",
    "output_send__qq",
    "output_send__qq_help",
    "report_to_parent",
    "test_ping",
  ]);
  await k.agent.whenIdle();
  await residents.close();
});
