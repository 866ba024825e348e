/**
 * Lua budgets that hold in the LLM adapter VMs (issue 11), which run inside the daemon: a user's
 * script in <home>/adapters/ with each runaway of the issue, at load, per stream chunk, in
 * transform_request and in headers (the two that may wait on http_get). Each stops with an error
 * naming the budget, its limit and the line; the next request is served; a VM that ran out of
 * memory is closed when its request ends, so the runtime holds no memory for it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LuaAdapterRuntime } from "../../../adapters/mod.ts";
import { silentLogger } from "../../../core/ports.ts";
import type { ChatRequest } from "../../../core/llm/provider.ts";
import { reply, startFakeOpenAI } from "../../fixtures/fake_llm.ts";
import { runawayCases } from "../../fixtures/lua_runaways.ts";
import { collect, lastOf, sourceAt, textOf } from "../_support.ts";
// A full script of the old kind (all five functions its own), as a user's copy may be.
import openai from "../../fixtures/lua/openai_full.lua" with { type: "text" };

const hello: ChatRequest = { messages: [{ role: "user", content: "Hi" }] };

const SCRIPTS = runawayCases("runaway.lua", false);

/** Where the runaway runs: the function it is put into (load: the script's top level). */
const PLACES = {
  load: "",
  transform_stream_chunk: "function transform_stream_chunk(line, state)",
  transform_request: "function transform_request(body)",
  headers: "function headers(config)",
} as const;

function scriptWith(place: keyof typeof PLACES, body: string): string {
  if (place === "load") return `${openai}\n${body}\n`;
  return openai.replace(PLACES[place], `${PLACES[place]}\n  ${body}`);
}

for (const [what, script] of Object.entries(SCRIPTS)) {
  for (const place of Object.keys(PLACES) as (keyof typeof PLACES)[]) {
    Deno.test(`A user's Lua adapter running ${what} in ${place} is stopped by its budget and the next request is served`, async () => {
      await using server = startFakeOpenAI({ fallback: reply.text("Served") });
      const dir = await Deno.makeTempDir({ prefix: "homeagent_adapters_" });
      try {
        await Deno.writeTextFile(join(dir, "runaway.lua"), scriptWith(place, script.body));
        const runtime = new LuaAdapterRuntime({
          logger: silentLogger,
          dir,
          instructionLimit: 1e12,
          timeLimitMs: script.timeMs,
          memoryLimitBytes: 32 * 1024 * 1024,
        });
        const bad = runtime.builder("runaway")(sourceAt(server.url, { adapter: "runaway" }), {});
        const last = lastOf(await collect(bad.stream(hello)));
        assert.equal(last.type, "error");
        if (last.type === "error") {
          assert.match(
            last.error.message,
            new RegExp(`Lua adapter "runaway" failed in ${place}: `),
          );
          assert.match(last.error.message, script.stop);
        }
        // Nothing stays held for the VM that ran out: it was closed when its request ended.
        if (/memory limit/.test(String(script.stop))) {
          assert.deepEqual(runtime.memory(), { vms: 0, heapBytes: 0, wasmBytes: 0 });
        }
        const good = runtime.builder("openai")(sourceAt(server.url), {});
        const events = await collect(good.stream(hello));
        assert.equal(lastOf(events).type, "done");
        assert.equal(textOf(events), "Served");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
}

Deno.test("A Lua adapter has no coroutines, hooks, collector or finalizers to escape its budget with", async () => {
  await using server = startFakeOpenAI({ fallback: reply.text("ok") });
  const probe = openai.replace(
    "function transform_stream_chunk(line, state)\n  return line",
    `function transform_stream_chunk(line, state)
  local gc = pcall(setmetatable, {}, { __gc = function() end })
  if line:find("[DONE]", 1, true) then return line end
  return (line:gsub('"content":"[^"]*"', '"content":"' .. tostring(coroutine) .. "," ..
    tostring(debug) .. "," .. tostring(collectgarbage) .. "," .. tostring(gc) .. ';"'))`,
  );
  const runtime = new LuaAdapterRuntime({
    logger: silentLogger,
    bundled: new Map([["probe", probe]]),
  });
  server.enqueue(reply.text("Hello"));
  const events = await collect(
    runtime.builder("probe")(sourceAt(server.url, { adapter: "probe" }), {}).stream(hello),
  );
  assert.match(textOf(events), /^(nil,nil,nil,false;)+$/);
});
