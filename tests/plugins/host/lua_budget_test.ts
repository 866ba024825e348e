/**
 * Lua budgets that hold (issue 11): each runaway script of the issue, in a stage, in a tool, in
 * start() and inside a coroutine, through the real registry and real wasmoon in a worker. The
 * script stops with an error naming the budget, its limit and the line; the kernel answers a
 * chat right after; a VM that ran out of memory is ended and its plugin restarted small.
 */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../../fixtures/fake_llm.ts";
import { runawayCases, writeLuaPlugin } from "../../fixtures/lua_runaways.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { createHarness, type PluginHarness, waitFor } from "./_support.ts";

const MEMORY = 32 * 1024 * 1024;

const SCRIPTS = runawayCases("main.lua", true);

type Place = "tool" | "stage" | "start()" | "coroutine";
const PLACES: Place[] = ["tool", "stage", "start()", "coroutine"];

function mainLua(place: Place, body: string): string {
  const run = place === "coroutine"
    ? `local co = coroutine.create(function() ${body} end)
       local ok, err = coroutine.resume(co)
       if not ok then error(err, 0) end`
    : body;
  return `local plugin = {}
function plugin.start(sdk)
  sdk.register_tool({ name = "ok_tool", description = "answers" }, function() return "fine" end)
  ${place === "start()" ? run : ""}
  ${
    place === "tool" || place === "coroutine"
      ? `sdk.register_tool({ name = "runaway", description = "x" }, function()\n${run}\nend)`
      : ""
  }
  ${place === "stage" ? `sdk.register_stage("pre_action", function(ctx)\n${run}\nend)` : ""}
end
return plugin
`;
}

async function harnessWith(place: Place, body: string, timeMs = 300) {
  const server = startFakeOpenAI({ fallback: reply.text("Hello from the model") });
  const h = await createHarness([], {
    load: false,
    sources: [{ name: "main", server }],
    luaTimeLimitMs: timeMs,
    luaInstructionLimit: 1e12,
    luaMemoryLimitBytes: MEMORY,
    backoffMs: [10],
  });
  await writeLuaPlugin(h.pluginsDir, "runaway", mainLua(place, body), {
    capabilities: ["tools", "stages"],
  });
  await h.registry.load();
  return {
    h,
    server,
    async [Symbol.asyncDispose]() {
      await h[Symbol.asyncDispose]();
      await server[Symbol.asyncDispose]();
    },
  };
}

async function chatStillAnswered(h: PluginHarness): Promise<void> {
  const answer = await h.kernel.ask("hello");
  assert.equal(answer.status, "ok");
  assert.equal(answer.text, "Hello from the model");
}

function stageFailure(h: PluginHarness): string {
  return h.kernel.logger.lines
    .filter((l) => l.msg === "Stage handler failed")
    .map((l) => String(l.fields?.error))
    .join("\n");
}

for (const [what, script] of Object.entries(SCRIPTS)) {
  for (const place of PLACES) {
    Deno.test(`A Lua plugin running ${what} in ${place} is stopped by its budget and the kernel keeps answering`, async () => {
      await using t = await harnessWith(place, script.body, script.timeMs);
      const { h } = t;
      if (place === "start()") {
        const info = h.registry.info("runaway");
        assert.equal(info.state, "failed");
        assert.match(info.error!, /Lua plugin "runaway" stopped in start\(\): /);
        assert.match(info.error!, script.stop);
      } else if (place === "stage") {
        await chatStillAnswered(h);
        assert.match(stageFailure(h), /stopped in stage "pre_action": /);
        assert.match(stageFailure(h), script.stop);
      } else {
        const info = h.registry.info("runaway");
        assert.equal(info.state, "running", `the plugin did not start: ${info.error}`);
        const result = await h.call("runaway");
        assert.equal(result.isError, true);
        assert.match(result.content, /stopped in tool "runaway": /);
        assert.match(result.content, script.stop);
      }
      await chatStillAnswered(h);
      if (/memory/.test(String(script.stop)) && place !== "start()") {
        // The VM that ran out was ended; the restarted one holds what a fresh one does.
        await waitFor(() => h.registry.info("runaway").state === "running");
        assert.equal((await h.call("ok_tool")).content, "fine");
        assert.ok(h.registry.info("runaway").memoryBytes! < 2 * 1024 * 1024);
      }
    });
  }
}

Deno.test("A Lua plugin's pcall, xpcall and coroutine.resume cannot keep a budget stop", async () => {
  const body = `
    for _ = 1, 3 do pcall(function() while true do end end) end
    for _ = 1, 3 do xpcall(function() while true do end end, function() return "kept" end) end
    local co = coroutine.create(function() while true do end end)
    while true do coroutine.resume(co) end`;
  await using t = await harnessWith("tool", body);
  const result = await t.h.call("runaway");
  assert.match(
    result.content,
    /stopped in tool "runaway": time limit of 300 ms exceeded at main\.lua:\d+/,
  );
  await chatStillAnswered(t.h);
});

Deno.test("A Lua plugin may not set __gc, remove the hook or collect garbage", async () => {
  const body = `
    local out = {}
    out[#out + 1] = tostring(pcall(setmetatable, {}, { __gc = function() while true do end end }))
    out[#out + 1] = tostring(debug) .. "," .. tostring(collectgarbage) .. "," .. tostring(load)
    return table.concat(out, ";")`;
  await using t = await harnessWith("tool", body);
  assert.equal((await t.h.call("runaway")).content, "false;nil,nil,nil");
});

Deno.test("Registry: a plugin of any kind whose start outlasts core.plugins.start_timeout_ms is failed and stopped", async () => {
  const clock = new ManualClock();
  await using h = await createHarness([], { load: false, clock });
  let stopped = false;
  h.registry.registerFactory("stuck", () => ({
    name: "stuck",
    start: () => new Promise<void>(() => {}),
    stop: () => void (stopped = true),
  }));
  h.kernel.config.registry.set("core.plugins.start_timeout_ms", 2000);
  const loading = h.registry.load();
  await clock.tick(1999);
  assert.equal(h.registry.info("stuck").state, "stopped");
  await clock.tick(1);
  await loading;
  const info = h.registry.info("stuck");
  assert.equal(info.state, "failed");
  assert.equal(
    info.error,
    'Plugin "stuck" did not start within 2000 ms (core.plugins.start_timeout_ms)',
  );
  assert.equal(stopped, true);
  assert.equal(info.crashes, 0, "a start that timed out is not a crash");
});

Deno.test("A Lua plugin whose start() waits on the host past the start timeout has its worker ended", async () => {
  // A declared host that accepts connections and never answers: start() waits on sdk.http.get.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  await using server = startFakeOpenAI({ fallback: reply.text("Hello from the model") });
  await using h = await createHarness([], {
    load: false,
    sources: [{ name: "main", server }],
    startTimeoutMs: 300,
  });
  await writeLuaPlugin(
    h.pluginsDir,
    "waiter",
    `return { start = function(sdk)
      sdk.register_tool({ name = "early", description = "x" }, function() return "x" end)
      sdk.http.get("http://127.0.0.1:${port}/never")
    end }`,
    { permissions: { net: ["127.0.0.1"] } },
  );
  try {
    await h.registry.load();
    const info = h.registry.info("waiter");
    assert.equal(info.state, "failed");
    assert.match(info.error!, /did not start within 300 ms \(core\.plugins\.start_timeout_ms\)/);
    assert.deepEqual(info.tools, [], "its registrations are gone");
    await chatStillAnswered(h);
  } finally {
    listener.close();
    await accepting.catch(() => {});
    for (const conn of held) conn.close();
  }
});
