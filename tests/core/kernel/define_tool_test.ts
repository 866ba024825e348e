import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool, parseToolArguments, type ToolCall, ToolRegistry } from "../../../core/mod.ts";

const ctx = { signal: new AbortController().signal, turnId: "t", callId: "c" };
const call = (args: unknown): ToolCall => ({
  id: "c",
  name: "files_read",
  arguments: JSON.stringify(args),
});

const read = defineTool({
  name: "files_read",
  description: "Read a file",
  input: z.object({
    path: z.string().min(1).describe("Path inside agentfs"),
    lines: z.int().min(1).optional(),
    offset: z.int().optional(),
    tags: z.record(z.string(), z.unknown()).optional(),
    items: z.array(z.object({ name: z.string() })).max(3).optional(),
  }),
  handler: (args) => `${args.path}:${args.lines ?? "all"}:${args.offset ?? 0}`,
});

Deno.test("defineTool derives the JSON Schema on first use, once, and registering keeps it lazy", () => {
  const tool = defineTool({
    name: "lazy_probe",
    description: "Probe",
    input: z.object({ q: z.string() }),
    handler: () => "ok",
  });
  const registered = new ToolRegistry().register(tool, "probe");
  for (const t of [tool, registered]) {
    assert.equal(typeof Object.getOwnPropertyDescriptor(t, "parameters")?.get, "function");
  }
  assert.equal(registered.plugin, "probe");
  assert.equal(registered.parameters, tool.parameters, "one derived schema");
  assert.deepEqual(registered.parameters, {
    type: "object",
    properties: { q: { type: "string" } },
    required: ["q"],
  });
});

Deno.test("defineTool derives a minimal JSON Schema from the zod object", () => {
  assert.equal(read.plugin, "core");
  assert.deepEqual(read.parameters, {
    type: "object",
    properties: {
      path: { type: "string", minLength: 1, description: "Path inside agentfs" },
      lines: { type: "integer", minimum: 1 },
      offset: { type: "integer" },
      tags: { type: "object" },
      items: {
        type: "array",
        maxItems: 3,
        items: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      },
    },
    required: ["path"],
  });
});

Deno.test("defineTool checks arguments with the zod schema and says what is wrong in words", () => {
  assert.deepEqual(parseToolArguments(read, call({ path: "a", lines: 2 })), {
    ok: true,
    args: { path: "a", lines: 2 },
  });
  const missing = parseToolArguments(read, call({ lines: 0 }));
  assert.equal(
    !missing.ok && missing.error,
    'Invalid arguments for "files_read": path: Required; ' +
      "lines: Too small: expected number to be >=1",
  );
  const nested = parseToolArguments(read, call({ path: "a", items: [{ name: 1 }] }));
  assert.match(!nested.ok ? nested.error : "", /items\[0\]\.name: Invalid input: expected string/);
  const notObject = parseToolArguments(read, { ...call({}), arguments: "[1]" });
  assert.match(!notObject.ok ? notObject.error : "", /must be a JSON object/);
});

Deno.test("defineTool hands the handler parsed arguments and refuses ones a stage broke", async () => {
  // Unknown keys are dropped (the schema does not forbid them); a strictObject refuses them.
  assert.equal(await read.handler({ path: "a", extra: true }, ctx), "a:all:0");
  assert.deepEqual(await read.handler({ path: 5 }, ctx), {
    content: 'Invalid arguments for "files_read": path: Invalid input: expected string, ' +
      "received number",
    isError: true,
  });
  const strict = defineTool({
    name: "strict_tool",
    plugin: "strict",
    description: "Strict",
    input: z.strictObject({ flag: z.boolean().default(false) }),
    handler: (args) => String(args.flag),
  });
  assert.equal(strict.plugin, "strict");
  assert.equal(strict.parameters.additionalProperties, false);
  assert.equal(await strict.handler({}, ctx), "false", "defaults apply");
  const refused = parseToolArguments(strict, { ...call({}), arguments: '{"flog":true}' });
  assert.match(!refused.ok ? refused.error : "", /\(arguments\): Unrecognized key: "flog"/);
});

Deno.test("A defineTool tool registers like any other and keeps its own checks", () => {
  const registry = new ToolRegistry();
  const tool = registry.register(read, "files");
  assert.equal(tool.plugin, "files");
  assert.equal(typeof tool.check, "function");
});

Deno.test("defineTool derives the schema of one zod object once", () => {
  const input = z.object({ id: z.string() });
  const spec = { name: "x_get", description: "Get", input, handler: () => "ok" };
  assert.equal(defineTool(spec).parameters, defineTool({ ...spec, name: "x_other" }).parameters);
});

Deno.test("a tool's input given as a function is built on first use, once, and refuses as an eager one", async () => {
  let builds = 0;
  const shape = () => ({ path: z.string().min(1), lines: z.int().min(1).optional() });
  const lazy = defineTool({
    name: "files_read",
    description: "Read a file",
    input: () => {
      builds++;
      return z.object(shape());
    },
    handler: (args) => `${args.path}:${args.lines ?? "all"}`,
  });
  const eager = defineTool({
    name: "files_read",
    description: "Read a file",
    input: z.object(shape()),
    handler: (args) => `${args.path}:${args.lines ?? "all"}`,
  });
  assert.equal(builds, 0, "registering builds nothing");
  for (const bad of [{}, { path: "" }, { path: "a", lines: 0 }, { path: 3 }]) {
    assert.equal(lazy.check!(bad), eager.check!(bad));
    assert.ok(lazy.check!(bad), JSON.stringify(bad));
    assert.deepEqual(await lazy.handler(bad, ctx), await eager.handler(bad, ctx));
  }
  assert.equal(await lazy.handler({ path: "a", lines: 2 }, ctx), "a:2");
  assert.deepEqual(lazy.parameters, eager.parameters);
  assert.equal(builds, 1);
});
