import assert from "node:assert/strict";
import { llmTools } from "../../../core/llm/tools.ts";
import type { ToolResult } from "../../../core/kernel/tools.ts";
import { openTestRegistry } from "../../fakes/config.ts";

const ctx = { signal: new AbortController().signal, turnId: "t", callId: "c" };

async function run(tools: ReturnType<typeof llmTools>, name: string, args = {}) {
  const out = await tools.find((t) => t.name === name)!.handler(args, ctx);
  return typeof out === "string" ? { content: out } : out as ToolResult;
}

Deno.test("llm_list_sources lists sources in order with flags; llm_set_source switches the primary", async () => {
  using t = openTestRegistry();
  const { registry } = t;
  registry.set("core.llm.sources.main.base_url", "https://api.openai.com/v1");
  registry.set("core.llm.sources.main.model", "gpt-4o");
  registry.set("core.llm.sources.claude.adapter", "anthropic");
  registry.set("core.llm.sources.claude.base_url", "https://api.anthropic.com");
  registry.set("core.llm.sources.claude.model", "claude-sonnet-4-5");
  registry.set("core.llm.sources.claude.vision", true);
  const tools = llmTools({ config: registry, health: () => [] });
  assert.ok(tools.every((tool) => tool.plugin === "core"));
  const listed = JSON.parse((await run(tools, "llm_list_sources")).content) as {
    name: string;
    vision: boolean;
  }[];
  assert.deepEqual(listed.map((s) => [s.name, s.vision]), [["main", false], ["claude", true]]);

  const set = await run(tools, "llm_set_source", {
    name: "claude",
    primary: true,
    model: "claude-opus-4-1",
  });
  assert.equal(set.isError, undefined);
  assert.deepEqual(registry.llmSources().map((s) => [s.name, s.model]), [
    ["claude", "claude-opus-4-1"],
    ["main", "gpt-4o"],
  ]);
  const off = await run(tools, "llm_set_source", { name: "main", enabled: false });
  assert.match(off.content, /enabled=false/);
  assert.deepEqual(registry.llmSources().map((s) => s.name), ["claude"]);
});

Deno.test("llm_set_source refuses an unknown source without model and base_url, and bad values", async () => {
  using t = openTestRegistry();
  const tools = llmTools({ config: t.registry, health: () => [] });
  const unknown = await run(tools, "llm_set_source", { name: "nope", enabled: true });
  assert.equal(unknown.isError, true);
  assert.match(unknown.content, /No LLM source named "nope"/);
  const bad = await run(tools, "llm_set_source", {
    name: "x",
    model: "m",
    base_url: "ftp://host",
  });
  assert.equal(bad.isError, true);
  assert.match(bad.content, /Cannot change source "x"/);
});
