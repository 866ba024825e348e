import assert from "node:assert/strict";
import { type EventOf, type KernelEvent, RecentContext, type ToolDef } from "../../../core/mod.ts";
import { reply, startFakeOllama, startFakeOpenAI } from "../../fixtures/fake_llm.ts";
import { createTestKernel } from "../../fakes/kernel.ts";

function ofType<T extends KernelEvent["type"]>(events: KernelEvent[], type: T): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.type === type);
}

const echoTool = {
  name: "test_echo",
  description: "Echo the text back",
  parameters: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  handler: (args: Record<string, unknown>) => `echo: ${args.text}`,
};

function toolMessages(body: { messages: Record<string, unknown>[] }): string[] {
  return body.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
}

Deno.test("Turn runs two tool rounds and answers with the model's final text", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  kernel.agent.tools.register(echoTool);
  server.enqueue(
    reply.toolCalls([{ name: "test_echo", arguments: { text: "one" } }]),
    reply.toolCalls([{ name: "test_echo", arguments: { text: "two" } }], { text: "thinking" }),
    reply.text("All done."),
  );
  const answer = await kernel.ask("please echo twice");
  assert.deepEqual(
    { status: answer.status, text: answer.text },
    { status: "ok", text: "All done." },
  );
  assert.equal(server.requests.length, 3);
  const first = server.requests[0]!.body;
  assert.equal(first.messages[0]!.role, "system");
  assert.match(String(first.messages[0]!.content), /You are a test agent/);
  assert.deepEqual(first.messages[1], { role: "user", content: "please echo twice" });
  assert.ok(Array.isArray(first.tools) && first.tools.length > 0);
  assert.deepEqual(toolMessages(server.requests[1]!.body), ["echo: one"]);
  assert.deepEqual(toolMessages(server.requests[2]!.body), ["echo: one", "echo: two"]);
  const chain = ofType(kernel.events, "agent_llm_chain");
  assert.deepEqual(chain.map((e) => e.round), [1, 2, 3]);
  assert.equal(chain[0]!.toolCalls[0]!.name, "test_echo");
  assert.equal(chain[0]!.source, "main");
  assert.ok(chain[2]!.usage && chain[2]!.usage.promptTokens > 0);
  const stages = ofType(kernel.events, "stage").map((e) => e.stage);
  assert.deepEqual(stages.slice(0, 3), ["on_input", "pre_action", "post_action"]);
  assert.deepEqual(stages.slice(-2), ["before_output", "after_output"]);
  assert.ok(stages.includes("before_toolcall") && stages.includes("after_toolcall"));
});

Deno.test("Turn records tool outputs in the window by each tool's memory policy", async () => {
  await using server = startFakeOpenAI();
  const context = new RecentContext();
  await using kernel = createTestKernel({ sources: [{ name: "main", server }], context });
  const tool = (name: string, output: string, policy: Partial<ToolDef>): ToolDef => ({
    name,
    description: name,
    parameters: { type: "object", properties: {} },
    handler: () => output,
    ...policy,
  });
  kernel.agent.tools.register(tool("test_secret", "password=1234", { noMemory: true }));
  kernel.agent.tools.register(
    tool("test_send", "<tpl>noise</tpl>delivered", {
      cleaner: (s) => s.replace(/<tpl>.*<\/tpl>/, ""),
    }),
  );
  kernel.agent.tools.register(tool("test_bad", "kept out", {
    cleaner: () => {
      throw new Error("cleaner broke");
    },
  }));
  kernel.agent.tools.register(tool("test_plain", "plain output", {}));
  server.enqueue(
    reply.toolCalls(["test_secret", "test_send", "test_bad", "test_plain"].map((name) => ({
      name,
      arguments: {},
    }))),
    reply.text("Done."),
  );
  assert.equal((await kernel.ask("do it")).text, "Done.");
  // The model read every output verbatim; the window keeps only what the policies let in.
  assert.deepEqual(toolMessages(server.requests[1]!.body), [
    "password=1234",
    "<tpl>noise</tpl>delivered",
    "kept out",
    "plain output",
  ]);
  const out = context.events().find((e) => e.role === "agent")!;
  assert.deepEqual(out.tools, [
    { name: "test_send", output: "delivered" },
    { name: "test_plain", output: "plain output" },
  ]);
  assert.ok(kernel.logger.lines.some((l) => l.msg.startsWith("Tool output cleaner failed")));
});

Deno.test("Turn streams content deltas that add up to the reply", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  server.enqueue(reply.text("Streaming works, one chunk at a time.", { chunkSize: 3 }));
  const answer = await kernel.ask("stream please");
  const deltas = ofType(kernel.events, "content_delta");
  assert.ok(deltas.length > 5, `expected many deltas, got ${deltas.length}`);
  assert.equal(deltas.map((d) => d.text).join(""), answer.text);
  assert.equal(server.requests[0]!.body.stream, true);
});

Deno.test("Turn falls back mid-stream and tells listeners to reset the partial text", async () => {
  await using first = startFakeOpenAI();
  await using second = startFakeOpenAI();
  await using kernel = createTestKernel({
    sources: [{ name: "first", server: first }, { name: "second", server: second }],
  });
  first.enqueue(
    reply.text("partial answer that breaks", { cut: "drop" }),
    reply.text("partial again", { cut: "drop" }),
  );
  second.enqueue(reply.text("Complete answer."));
  const answer = await kernel.ask("hi");
  assert.equal(answer.text, "Complete answer.");
  const deltas = ofType(kernel.events, "content_delta");
  const lastReset = deltas.findLastIndex((d) => d.reset === true);
  assert.ok(lastReset >= 0, "a reset delta was published");
  assert.equal(deltas.slice(lastReset + 1).map((d) => d.text).join(""), "Complete answer.");
  const fallback = ofType(kernel.events, "provider_fallback");
  assert.deepEqual(fallback.map((f) => [f.from, f.to]), [["first", "second"]]);
});

Deno.test("Turn reports every source's failure when all are down", async () => {
  await using first = startFakeOpenAI();
  await using second = startFakeOpenAI();
  await using kernel = createTestKernel({
    sources: [{ name: "first", server: first }, { name: "second", server: second }],
  });
  first.enqueue(reply.status(401, "Incorrect API key"));
  second.enqueue(reply.status(500, "overloaded"), reply.status(500, "still overloaded"));
  const answer = await kernel.ask("hi");
  assert.equal(answer.status, "error");
  assert.equal(answer.errorCode, "providers_all_failed");
  assert.match(answer.text, /first.*401.*Incorrect API key/);
  assert.match(answer.text, /second.*500/);
});

Deno.test("Turn without any LLM source answers how to configure one", async () => {
  await using kernel = createTestKernel();
  const answer = await kernel.ask("hello");
  assert.equal(answer.status, "error");
  assert.equal(answer.errorCode, "no_provider");
  assert.match(answer.text, /HOMEAGENT_LLM_BASE_URL/);
  assert.equal(answer.text.split("\n").length, 1);
});

Deno.test("Turn isolates a throwing stage handler and still answers", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  kernel.agent.stages.register("pre_action", () => {
    throw new Error("plugin bug");
  }, { plugin: "buggy" });
  kernel.agent.stages.register("pre_action", (c) => {
    c.systemMessages.push("Injected note from a plugin.");
  }, { plugin: "good" });
  server.enqueue(reply.text("fine"));
  const answer = await kernel.ask("hi");
  assert.equal(answer.text, "fine");
  assert.match(String(server.requests[0]!.body.messages[0]!.content), /Injected note/);
  const failure = kernel.logger.find("Stage handler failed")[0];
  assert.equal(failure?.fields.plugin, "buggy");
  assert.match(String(failure?.fields.stack), /plugin bug/);
});

Deno.test("Turn short-circuits from on_input to after_output without calling the model", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  const seen: string[] = [];
  kernel.agent.stages.register("on_input", (c) => {
    if (c.input.text.includes("spam")) c.response = "Blocked.";
  }, { plugin: "filter" });
  kernel.agent.stages.register("before_output", () => void seen.push("before_output"), {
    plugin: "x",
  });
  kernel.agent.stages.register("after_output", (c) => void seen.push(`after:${c.output}`), {
    plugin: "x",
  });
  const answer = await kernel.ask("buy spam now");
  assert.deepEqual({ status: answer.status, text: answer.text }, {
    status: "short_circuit",
    text: "Blocked.",
  });
  assert.equal(server.requests.length, 0);
  assert.deepEqual(seen, ["after:Blocked."]);
});

Deno.test("Turn lets before_output rewrite the final text", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  kernel.agent.stages.register("before_output", (c) => {
    c.output = `${c.output} [formatted]`;
  }, { plugin: "fmt" });
  server.enqueue(reply.text("hello"));
  assert.equal((await kernel.ask("hi")).text, "hello [formatted]");
});

Deno.test("Turn feeds a rejected call back to the model and exits when all are rejected", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  kernel.agent.tools.register(echoTool);
  kernel.agent.stages.register("before_toolcall", (c) => {
    if (c.toolCall?.args.text === "secret") c.reject = "not allowed to echo secrets";
  }, { plugin: "audit" });
  server.enqueue(
    reply.toolCalls([
      { name: "test_echo", arguments: { text: "secret" } },
      { name: "test_echo", arguments: { text: "public" } },
    ]),
    reply.toolCalls([{ name: "test_echo", arguments: { text: "secret" } }], {
      text: "Let me try again.",
    }),
  );
  const answer = await kernel.ask("echo things");
  assert.deepEqual(toolMessages(server.requests[1]!.body), [
    "Rejected: not allowed to echo secrets",
    "echo: public",
  ]);
  assert.equal(server.requests.length, 2, "all calls rejected: no further round");
  assert.equal(answer.text, "Let me try again.");
});

Deno.test("Turn turns a throwing tool, an unknown tool and bad arguments into results", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  kernel.agent.tools.register(echoTool);
  kernel.agent.tools.register({
    ...echoTool,
    name: "test_explode",
    handler: () => {
      throw new Error("kaboom");
    },
  });
  server.enqueue(
    reply.toolCalls([
      { name: "test_explode", arguments: { text: "x" } },
      { name: "no_such_tool", arguments: {} },
      { name: "test_echo", arguments: { wrong: 1 } },
    ]),
    reply.text("Recovered."),
  );
  const answer = await kernel.ask("go");
  assert.equal(answer.text, "Recovered.");
  const [explode, unknown, bad] = toolMessages(server.requests[1]!.body);
  assert.match(explode!, /^Error: Tool "test_explode" failed: kaboom/);
  assert.match(unknown!, /unknown tool "no_such_tool"/);
  assert.match(bad!, /Invalid arguments for "test_echo"/);
});

Deno.test("Turn cuts a hanging tool at its timeout and aborts it", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({
    sources: [{ name: "main", server }],
    config: { "core.agent.tool_timeout_ms": 100 },
  });
  let aborted = false;
  kernel.agent.tools.register({
    ...echoTool,
    name: "test_hang",
    handler: (_args, ctx) =>
      new Promise<string>((_, reject) => {
        ctx.signal.addEventListener("abort", () => {
          aborted = true;
          reject(ctx.signal.reason);
        });
      }),
  });
  server.enqueue(
    reply.toolCalls([{ name: "test_hang", arguments: { text: "x" } }]),
    reply.text("ok"),
  );
  const answer = await kernel.ask("hang");
  assert.equal(answer.text, "ok");
  assert.equal(aborted, true);
  assert.deepEqual(toolMessages(server.requests[1]!.body), [
    'Error: Tool "test_hang" timed out after 100 ms',
  ]);
});

Deno.test("Turn stops at core.agent.max_tool_turns", async () => {
  await using server = startFakeOpenAI({
    fallback: reply.toolCalls([{ name: "test_echo", arguments: { text: "again" } }]),
  });
  await using kernel = createTestKernel({
    sources: [{ name: "main", server }],
    config: { "core.agent.max_tool_turns": 3 },
  });
  kernel.agent.tools.register(echoTool);
  const answer = await kernel.ask("loop forever");
  assert.equal(server.requests.length, 3);
  assert.equal(answer.status, "ok");
  assert.match(answer.text, /stopped after 3 rounds/);
  assert.equal(kernel.logger.find("Tool round limit reached").length, 1);
});

Deno.test("Turn runs parallel-safe calls of one round concurrently, others one at a time", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  const log: string[] = [];
  let arrived = 0;
  let release!: () => void;
  const both = new Promise<void>((r) => release = r);
  const parallelTool = (name: string) => ({
    ...echoTool,
    name,
    parallelSafe: true,
    handler: async () => {
      log.push(`${name}:start`);
      if (++arrived === 2) release();
      await both; // deadlocks (and times out) unless both run at once
      log.push(`${name}:end`);
      return name;
    },
  });
  kernel.agent.tools.register(parallelTool("test_a"));
  kernel.agent.tools.register(parallelTool("test_b"));
  kernel.agent.tools.register({
    ...echoTool,
    name: "test_serial",
    handler: () => {
      log.push("serial");
      return "serial";
    },
  });
  server.enqueue(
    reply.toolCalls([
      { name: "test_a", arguments: { text: "" } },
      { name: "test_b", arguments: { text: "" } },
      { name: "test_serial", arguments: { text: "" } },
    ]),
    reply.text("done"),
  );
  assert.equal((await kernel.ask("go")).text, "done");
  assert.deepEqual(log, ["test_a:start", "test_b:start", "test_a:end", "test_b:end", "serial"]);
  assert.deepEqual(toolMessages(server.requests[1]!.body), ["test_a", "test_b", "serial"]);
});

Deno.test("Turn holds a tool round through an Ollama source", async () => {
  await using server = startFakeOllama();
  await using kernel = createTestKernel({
    sources: [{ name: "local", server, adapter: "ollama" }],
  });
  kernel.agent.tools.register(echoTool);
  server.enqueue(
    reply.toolCalls([{ name: "test_echo", arguments: { text: "from ollama" } }]),
    reply.text("Ollama says done."),
  );
  const answer = await kernel.ask("use the tool");
  assert.equal(answer.text, "Ollama says done.");
  assert.equal(server.requests[0]!.path, "/api/chat");
  assert.deepEqual(toolMessages(server.requests[1]!.body), ["echo: from ollama"]);
  assert.equal(ofType(kernel.events, "agent_llm_chain")[0]!.source, "local");
});
