/**
 * Tools by need through the real OpenAI client and a fake server: what each request carries,
 * tool_search and tool_load, and how long a loaded tool stays.
 */
import assert from "node:assert/strict";
import { type ToolDef } from "../../../core/mod.ts";
import { type FakeRequest, reply, startFakeOpenAI } from "../../fixtures/fake_llm.ts";
import { createTestKernel } from "../../fakes/kernel.ts";

const tool = (name: string, description: string, extra: Partial<ToolDef> = {}): ToolDef => ({
  name,
  description,
  parameters: { type: "object", properties: { text: { type: "string" } } },
  handler: (args) => `${name}: ${args.text ?? ""}`,
  ...extra,
});

const sent = (request: FakeRequest) =>
  ((request.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

const lastTool = (request: FakeRequest) =>
  String(request.body.messages.filter((m) => m.role === "tool").at(-1)?.content ?? "");

function registerTools(kernel: ReturnType<typeof createTestKernel>) {
  kernel.agent.tools.register(tool("test_echo", "Echo the text back, word for word"));
  kernel.agent.tools.register(tool("test_weather", "Tell the weather forecast for a city"));
  kernel.agent.tools.register(tool("test_pinned", "A tool the owner pinned"));
  kernel.agent.tools.register(tool("test_marked", "A plugin's essential tool", { always: true }));
  kernel.agent.outputs.register({
    name: "test",
    plugin: "test",
    caps: 1,
    description: "the test channel",
    handler() {},
  });
}

Deno.test("ToolCatalog sends a small window the always set, pins, marked tools and the reply channel's send tool", async () => {
  await using server = startFakeOpenAI({ fallback: reply.text("ok") });
  await using kernel = createTestKernel({
    sources: [{ name: "main", server, contextWindow: 8192 }],
    config: { "core.tools.pinned": "test_pinned", "core.tools.always": "tool_search,tool_load" },
  });
  registerTools(kernel);
  await kernel.ask("hello"); // from source "test", so its replies go to channel "test"
  assert.deepEqual(sent(server.requests[0]!).sort(), [
    "output_send__test",
    "test_marked",
    "test_pinned",
    "tool_load",
    "tool_search",
  ]);
  const search = (server.requests[0]!.body.tools as { function: { description: string } }[])
    .find((t) => t.function.description.startsWith("Find more tools"))!;
  assert.match(
    search.function.description,
    /; tools for test, output$/,
    "says what there is to find",
  );
});

Deno.test("ToolCatalog sends every schema to a window of core.tools.all_schemas_window or more", async () => {
  await using server = startFakeOpenAI({ fallback: reply.text("ok") });
  await using kernel = createTestKernel({
    sources: [{ name: "main", server, contextWindow: 65_536 }],
  });
  registerTools(kernel);
  await kernel.ask("hello");
  assert.deepEqual(sent(server.requests[0]!).sort(), [
    "output_send__test",
    "output_send__test_help",
    "test_echo",
    "test_marked",
    "test_pinned",
    "test_weather",
  ], "all of them, and no tool_search: nothing is hidden");
});

Deno.test("tool_search finds a tool; tool_load sends it for the rest of the turn and load_turns more", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({
    sources: [{ name: "main", server, contextWindow: 8192 }],
    config: { "core.tools.load_turns": 1 },
  });
  registerTools(kernel);
  server.enqueue(
    reply.toolCalls([{ name: "tool_search", arguments: { query: "echo my words back" } }]),
    (request) => {
      assert.match(lastTool(request), /^test_echo: Echo the text back, word for word$/m);
      assert.doesNotMatch(lastTool(request), /test_marked/, "what is always sent is not offered");
      assert.ok(!sent(request).includes("test_echo"), "found, not loaded yet");
      return reply.toolCalls([{ name: "tool_load", arguments: { names: ["test_echo", "nope"] } }]);
    },
    (request) => {
      assert.match(lastTool(request), /^Loaded test_echo: call it now\. Unknown: nope\.$/);
      assert.ok(sent(request).includes("test_echo"), "loaded: its schema is in the request");
      return reply.toolCalls([{ name: "test_echo", arguments: { text: "hi" } }]);
    },
    (request) => reply.text(lastTool(request)),
  );
  assert.equal((await kernel.ask("say hi back")).text, "test_echo: hi");

  server.enqueue(reply.text("one"), reply.text("two"));
  await kernel.ask("next turn");
  assert.ok(sent(server.requests.at(-1)!).includes("test_echo"), "kept for one more turn");
  await kernel.ask("and the one after");
  assert.ok(!sent(server.requests.at(-1)!).includes("test_echo"), "then it goes back");
});

Deno.test("A call to a registered tool that was not sent runs, and loads it for the turn", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({
    sources: [{ name: "main", server, contextWindow: 8192 }],
    config: { "core.tools.load_turns": 0 },
  });
  registerTools(kernel);
  server.enqueue(
    reply.toolCalls([{ name: "test_weather", arguments: { text: "Oslo" } }]),
    (request) => {
      assert.equal(lastTool(request), "test_weather: Oslo");
      assert.ok(sent(request).includes("test_weather"), "its schema now goes with the turn");
      return reply.toolCalls([{ name: "no_such_tool", arguments: {} }]);
    },
    (request) => reply.text(lastTool(request)),
  );
  const answer = await kernel.ask("weather?");
  assert.match(answer.text, /unknown tool "no_such_tool"; tool_search finds the tools there are/);
  server.enqueue(reply.text("ok"));
  await kernel.ask("again");
  assert.ok(!sent(server.requests.at(-1)!).includes("test_weather"), "load_turns 0: gone");
});

Deno.test("tool_search says what exists when nothing matches, and asks for a query", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({
    sources: [{ name: "main", server, contextWindow: 8192 }],
  });
  registerTools(kernel);
  server.enqueue(
    reply.toolCalls([{ name: "tool_search", arguments: { query: "zzz qqq" } }]),
    (request) => {
      assert.match(lastTool(request), /^No tool matches "zzz qqq"\. Tools exist for: test\.$/);
      return reply.toolCalls([{ name: "tool_search", arguments: { query: " " } }]);
    },
    (request) => reply.text(lastTool(request)),
  );
  assert.match((await kernel.ask("find")).text, /Give a query/);
});
