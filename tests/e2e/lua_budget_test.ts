/**
 * The Lua findings on the real daemon (`main.ts serve` in a temp home): a plugin whose
 * start() loops inside a coroutine no longer keeps the daemon from starting (it is marked
 * failed, with the budget in its error); a tool that fills memory, or runs a pathological
 * pattern, fails as a tool call while the chat goes on; the daemon's memory goes back down.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { runMain, startServe } from "../fakes/daemon.ts";
import { writeLuaPlugin } from "../fixtures/lua_runaways.ts";

const PLUGINS: Record<string, { main: string }> = {
  hangs: {
    main: `return { start = function(sdk)
  coroutine.wrap(function() while true do end end)()
end }`,
  },
  greedy: {
    main: `return { start = function(sdk)
  sdk.register_tool({ name = "greedy_fill", description = "fills memory" }, function()
    local t, i = {}, 0
    while true do i = i + 1 t[i] = string.rep("x", 100000) .. i end
  end)
end }`,
  },
  patterns: {
    main: `return { start = function(sdk)
  sdk.register_tool({ name = "pattern_tool", description = "matches" }, function()
    local found = string.find(string.rep("a", 220), ".-.-.-.-b")
    return tostring(found)
  end)
end }`,
  },
};

async function writePlugins(home: string): Promise<void> {
  for (const [name, plugin] of Object.entries(PLUGINS)) {
    await writeLuaPlugin(join(home, "plugins"), name, plugin.main);
  }
}

/** Resident memory of process `pid`, MB (Linux). */
async function rssMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

Deno.test("The daemon starts past a Lua plugin that hangs in start() and serves chats past Lua runaways", async () => {
  await using server = startFakeOpenAI({
    fallback: (request) => {
      const last = request.body.messages.at(-1)!;
      if (last.role === "tool") return reply.text(`Tool said: ${last.content}`);
      const text = String(last.content);
      if (text === "fill") return reply.toolCalls([{ name: "greedy_fill", arguments: {} }]);
      if (text === "match") return reply.toolCalls([{ name: "pattern_tool", arguments: {} }]);
      return reply.text("Hello back");
    },
  });
  const home = await Deno.makeTempDir({ prefix: "homeagent-lua-e2e-" });
  try {
    await writePlugins(home);
    const settings: [string, string][] = [
      // Well above what the runaways need to reach their own limit on a loaded machine: at 800
      // ms, parallel CI runs hit the time limit first (the test is about the other limits).
      ["core.plugins.lua.time_limit_ms", "5000"],
      ["core.plugins.lua.memory_limit_mb", "32"],
    ];
    for (const [key, value] of settings) {
      const set = await runMain(["config", "set", key, value, "--home", home]);
      assert.equal(set.code, 0, set.stderr);
    }
    const env = { HOMEAGENT_LLM_BASE_URL: server.url, HOMEAGENT_LLM_MODEL: "fake-model" };
    await using daemon = await startServe(home, env);
    const pid = await daemon.agentPid();

    const list = JSON.parse((await runMain(["plugin", "list", "--home", home])).stdout) as {
      name: string;
      state: string;
      error?: string;
    }[];
    const hangs = list.find((p) => p.name === "hangs")!;
    assert.equal(hangs.state, "failed");
    assert.match(
      hangs.error!,
      /stopped in start\(\): instruction limit of 10000000 exceeded at main\.lua:2/,
    );
    assert.equal(list.find((p) => p.name === "greedy")!.state, "running");

    const before = await rssMb(pid);
    const fill = await runMain(["chat", "--home", home, "fill"]);
    assert.equal(fill.code, 0, fill.stderr);
    assert.match(fill.stdout, /Tool said: .*memory limit of 32 MB exceeded at main\.lua:4/);
    const match = await runMain(["chat", "--home", home, "match"]);
    assert.match(
      match.stdout,
      /Tool said: .*instruction limit of 10000000 exceeded at main\.lua:3/,
    );
    const hello = await runMain(["chat", "--home", home, "hi"]);
    assert.match(hello.stdout, /Hello back/);
    // The VM that filled its 32 MB was ended with its worker: the daemon holds no more than it did.
    const after = await rssMb(pid);
    assert.ok(
      after < before + 24,
      `resident memory ${before.toFixed(0)} MB before, ${after.toFixed(0)} MB after`,
    );

    const stopped = await daemon.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
