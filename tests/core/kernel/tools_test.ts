import assert from "node:assert/strict";
import {
  compactSchema,
  executeTool,
  inferPlugin,
  parseToolArguments,
  type ToolCall,
  ToolRegistry,
  toSchema,
} from "../../../core/mod.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

const echo = {
  name: "files_read",
  description: "read a file",
  parameters: {
    type: "object",
    properties: { path: { type: "string" }, lines: { type: "integer", minimum: 1 } },
    required: ["path"],
    additionalProperties: false,
  },
  handler: (args: Record<string, unknown>) => `read ${args.path}`,
};

Deno.test("ToolRegistry refuses duplicates and infers the owner from the name prefix", () => {
  const registry = new ToolRegistry();
  assert.equal(registry.register(echo).plugin, "files");
  assert.throws(() => registry.register(echo), /already registered by plugin "files"/);
  assert.equal(registry.register({ ...echo, name: "other" }, "explicit").plugin, "explicit");
  assert.throws(() => registry.register({ ...echo, name: "bad name!" }), /names must match/);
  assert.equal(inferPlugin("qq_send_message"), "qq");
  assert.equal(inferPlugin("plain"), "plain");
});

Deno.test("ToolRegistry unregisterPlugin removes only that plugin's tools", () => {
  const registry = new ToolRegistry();
  registry.register(echo);
  registry.register({ ...echo, name: "files_write" });
  registry.register({ ...echo, name: "cmd_run" });
  assert.deepEqual(registry.unregisterPlugin("files").sort(), ["files_read", "files_write"]);
  assert.deepEqual(registry.list().map((t) => t.name), ["cmd_run"]);
});

Deno.test("parseToolArguments validates against the JSON Schema with readable errors", () => {
  const call = (args: string): ToolCall => ({ id: "c", name: "files_read", arguments: args });
  assert.deepEqual(parseToolArguments(echo, call('{"path":"a"}')), {
    ok: true,
    args: { path: "a" },
  });
  const missing = parseToolArguments(echo, call("{}"));
  assert.equal(missing.ok, false);
  assert.match(!missing.ok ? missing.error : "", /Invalid arguments for "files_read".*path/);
  const wrongType = parseToolArguments(echo, call('{"path":"a","lines":0}'));
  assert.match(!wrongType.ok ? wrongType.error : "", /lines/);
  const notJson = parseToolArguments(echo, call("{path:"));
  assert.match(!notJson.ok ? notJson.error : "", /not valid JSON/);
  const array = parseToolArguments(echo, call("[1]"));
  assert.match(!array.ok ? array.error : "", /must be a JSON object/);
  assert.deepEqual(parseToolArguments({ ...echo, parameters: { type: "object" } }, call("")), {
    ok: true,
    args: {},
  });
});

Deno.test("executeTool turns a throwing tool into an error result", async () => {
  const registry = new ToolRegistry();
  const tool = registry.register({
    ...echo,
    handler: () => {
      throw new Error("disk on fire");
    },
  });
  const logger = new MemoryLogger();
  const result = await executeTool(
    tool,
    { path: "x" },
    { id: "1", name: tool.name, arguments: "" },
    {
      clock: new ManualClock(),
      logger,
      turnId: "t",
      signal: new AbortController().signal,
      defaultTimeoutMs: 1000,
    },
  );
  assert.deepEqual(result, { content: 'Tool "files_read" failed: disk on fire', isError: true });
  assert.match(String(logger.find("Tool threw")[0]?.fields.stack), /disk on fire/);
});

Deno.test("executeTool cuts a hanging tool at its timeout and aborts its signal", async () => {
  const clock = new ManualClock();
  const registry = new ToolRegistry();
  let seenSignal: AbortSignal | undefined;
  const tool = registry.register({
    ...echo,
    timeoutMs: 5000,
    handler: (_args, ctx) => {
      seenSignal = ctx.signal;
      return new Promise<string>(() => {});
    },
  });
  const pending = executeTool(tool, {}, { id: "1", name: tool.name, arguments: "" }, {
    clock,
    logger: new MemoryLogger(),
    turnId: "t",
    signal: new AbortController().signal,
    defaultTimeoutMs: 60_000,
  });
  await clock.tick(5000);
  const result = await pending;
  assert.deepEqual(result, { content: 'Tool "files_read" timed out after 5000 ms', isError: true });
  assert.equal(seenSignal?.aborted, true);
  assert.equal(clock.pending, 0);
});

Deno.test("executeTool rethrows when the turn itself is aborted", async () => {
  const registry = new ToolRegistry();
  const controller = new AbortController();
  const tool = registry.register({
    ...echo,
    handler: (_args, ctx) =>
      new Promise<string>((_, reject) =>
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))
      ),
  });
  const pending = executeTool(tool, {}, { id: "1", name: tool.name, arguments: "" }, {
    clock: new ManualClock(),
    logger: new MemoryLogger(),
    turnId: "t",
    signal: controller.signal,
    defaultTimeoutMs: 60_000,
  });
  controller.abort(new DOMException("stop", "AbortError"));
  await assert.rejects(pending, { name: "AbortError" });
});

Deno.test("toSchema sends a compact schema; arguments are still checked against the full one", () => {
  const parameters = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    title: "Args",
    properties: {
      path: { type: "string", description: "Path", minLength: 1, maxLength: 200 },
      limit: { type: "integer", default: 30, description: "Most lines (30)" },
      mode: { type: "string", enum: ["a", "b"], default: "a", description: "How to open it" },
      nested: {
        type: "object",
        properties: { x: { type: "number", description: "" } },
        required: [],
        additionalProperties: false,
      },
    },
    required: ["path"],
    additionalProperties: false,
  };
  const def = { name: "t_open", description: " Open a file. ", parameters, handler: () => "" };
  assert.deepEqual(toSchema(def), {
    name: "t_open",
    description: "Open a file.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string" },
        limit: { type: "integer", description: "Most lines (30)" },
        mode: { type: "string", enum: ["a", "b"], default: "a", description: "How to open it" },
        nested: { type: "object", properties: { x: { type: "number" } } },
      },
      required: ["path"],
    },
  });
  assert.equal(compactSchema(parameters), compactSchema(parameters), "computed once per schema");
  const extra = parseToolArguments(def, {
    id: "1",
    name: "t_open",
    arguments: '{"path":"a","x":1}',
  });
  assert.equal(extra.ok, false, "unknown keys are still refused");
});
