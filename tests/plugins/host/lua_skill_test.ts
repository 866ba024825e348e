/** Lua plugins (sandbox, budget, SDK surface) and SKILL plugins (index, skill_load). */
import assert from "node:assert/strict";
import type { StageContext } from "../../../core/mod.ts";
import { parseSkill } from "../../../plugins/mod.ts";
import { copyFixture, createHarness } from "./_support.ts";
import { serveEndlessAnswer } from "../../fixtures/endless_answer.ts";

Deno.test("A Lua plugin registers tools and a stage, reads settings and JSON", async () => {
  await using h = await createHarness(["luademo"]);
  assert.deepEqual(await h.call("lua_greet", { who: "ann" }), { content: "hello, ann" });
  assert.deepEqual(await h.call("lua_greet"), { content: "hello, world" });
  h.kernel.config.registry.set("plugin.luademo.name", "bob");
  assert.deepEqual(await h.call("lua_greet"), { content: "hello, bob" });
  const json = JSON.parse((await h.call("lua_json", { a: 1 })).content);
  assert.deepEqual(json, { got: { a: 1 }, n: 3 });
  const context = {
    stage: "pre_action",
    turnId: "t",
    input: { id: "t", text: "x [lua-stage]", source: "t", channel: "t", priority: 0 },
    systemMessages: [],
    shared: new Map(),
  } as unknown as StageContext;
  await h.kernel.agent.stages.run(context);
  assert.ok(context.systemMessages.includes("lua plugin saw the input"));
});

Deno.test("A looping Lua plugin is cut by its instruction limit, even inside pcall, and keeps serving", async () => {
  await using h = await createHarness(["luademo"], { luaInstructionLimit: 2_000_000 });
  for (const tool of ["lua_spin", "lua_pcall_spin"]) {
    const started = Date.now();
    const result = await h.call(tool);
    assert.equal(result.isError, true);
    assert.match(
      result.content,
      new RegExp(
        `stopped in tool "${tool}": instruction limit of 2000000 exceeded at main\\.lua:\\d+`,
      ),
    );
    assert.ok(Date.now() - started < 5000);
  }
  assert.deepEqual(await h.call("lua_greet", { who: "x" }), { content: "hello, x" });
});

Deno.test("Lua sdk.http reaches declared hosts only; io and os.execute are gone", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("pong"),
  );
  await using h = await createHarness(["luademo"]);
  const ok = await h.call("lua_fetch", { url: `http://127.0.0.1:${server.addr.port}/ping` });
  await server.shutdown();
  assert.equal(ok.content, "status 200: pong");
  const refused = await h.call("lua_fetch", { url: "http://localhost:9/" });
  assert.match(refused.content, /refused: .*may not reach "localhost:9"/);
  const dir = await copyFixture(h.pluginsDir, "luademo", "luaprobe");
  await Deno.writeTextFile(
    `${dir}/plugin.json`,
    JSON.stringify({
      name: "luaprobe",
      version: "1.0.0",
      entry: "main.lua",
      kind: "lua",
      capabilities: ["tools"],
    }),
  );
  await Deno.writeTextFile(
    `${dir}/main.lua`,
    `return { start = function(sdk)
      sdk.register_tool({ name = "probe" }, function()
        return tostring(io) .. "," .. tostring(os.execute) .. "," .. tostring(require) .. "," .. tostring(load)
      end)
    end }`,
  );
  await h.registry.load();
  assert.equal((await h.call("probe")).content, "nil,nil,nil,nil");
});

Deno.test("A Lua plugin without the tools capability cannot register one and fails to start", async () => {
  await using h = await createHarness([], { load: false });
  const dir = await copyFixture(h.pluginsDir, "luademo");
  const manifest = JSON.parse(await Deno.readTextFile(`${dir}/plugin.json`));
  await Deno.writeTextFile(`${dir}/plugin.json`, JSON.stringify({ ...manifest, capabilities: [] }));
  await h.registry.load();
  const info = h.registry.info("luademo");
  assert.equal(info.state, "failed");
  assert.match(info.error!, /capability "tools" is not declared/);
});

Deno.test("SKILL plugins: front matter and sections parsed, a compact index in pre_action, skill_load in full", async () => {
  await using h = await createHarness(["cooking"]);
  const context = {
    stage: "pre_action",
    turnId: "t",
    input: { id: "t", text: "x", source: "t", channel: "t", priority: 0 },
    systemMessages: [],
    promptSections: [],
    shared: new Map(),
  } as unknown as StageContext;
  await h.kernel.agent.stages.run(context);
  // The index is a prompt section of its own (the skills' share of the budget, cut by
  // relevance); it holds name and description only, the rest is for skill_load.
  assert.deepEqual(context.systemMessages, []);
  assert.deepEqual(context.promptSections, [{
    title: "Skills",
    hint: "Call skill_load with a name to read a skill before using it.",
    lines: ["- rice: Cook plain rice on the stove"],
    kind: "skills",
    ranked: false,
  }]);
  const full = await h.call("skill_load", { name: "rice" });
  assert.match(full.content, /# Skill rice 1.0.0/);
  assert.match(full.content, /Rinse 1 cup/);
  assert.match((await h.call("skill_load", { name: "nope" })).content, /installed: rice/);
  const skill = await parseSkill(await Deno.readTextFile(`${h.pluginsDir}/cooking/SKILL.md`));
  assert.deepEqual([...skill.sections.keys()], ["when to use", "steps"]);
  await assert.rejects(parseSkill("no front matter"), /no YAML front matter/);
  await assert.rejects(parseSkill("---\nname: x\n---\n"), /description: required/);
});

Deno.test("Lua sdk.http stops reading an answer past 16 MiB and says so", async () => {
  // 64 MiB offered in 64 KiB pieces, pulled on demand: the old host read all of it into one
  // string (and handed it to the VM), whatever the plugin's memory limit.
  await using server = serveEndlessAnswer({ piece: new Uint8Array(65536).fill(0x61), times: 1024 });
  await using h = await createHarness(["luademo"]);
  const result = await h.call("lua_fetch", { url: `${server.origin}/big` });
  assert.match(result.content, /^refused: .*larger than 16777216 bytes, the most sdk\.http takes/);
  assert.ok(server.pulled < 32 * 1024 * 1024, `pulled ${server.pulled} bytes`);
  assert.deepEqual(await h.call("lua_greet", { who: "x" }), { content: "hello, x" });
});
