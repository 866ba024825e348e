/**
 * LuaBudget on a bare wasmoon engine: the library functions whose cost is not one instruction
 * (charged or sliced), the ways a script could keep running after a stop, and what a breach
 * reports. The plugin and adapter tests run the runaways through the real hosts.
 */
import assert from "node:assert/strict";
import { LuaFactory } from "wasmoon";
import { describeBreach, LuaBudget } from "../../../core/mod.ts";

const factory = new LuaFactory();

/** Run `source` as chunk main.lua in a fresh VM under one call; its breach, or its result text. */
async function run(source: string, timeMs = 200): Promise<string> {
  const engine = await factory.createEngine({ injectObjects: false, enableProxy: false });
  const budget = LuaBudget.install(engine, {
    limits: { instructions: 1e12, timeMs, memoryBytes: 16 * 1024 * 1024 },
    now: () => performance.now(),
  });
  try {
    const global = engine.global;
    global.loadString(source, "=main.lua");
    const call = budget.begin();
    const status = budget.run(call, () => global.lua.lua_pcallk(global.address, 0, 1, 0, 0, null));
    const breach = budget.breachOf(call);
    if (breach) return describeBreach(breach);
    return `${status} ${global.lua.lua_tolstring(global.address, -1, null)}`;
  } finally {
    engine.global.close();
    budget.dispose();
  }
}

Deno.test("LuaBudget stops library calls whose C work is far more than one instruction", async () => {
  const cases: [string, RegExp][] = [
    // table.move walks a huge range over nothing, in C.
    [
      "local t = {} table.move(t, 1, math.maxinteger // 2, 2) return 'moved'",
      /time limit of 200 ms exceeded at main\.lua:1/,
    ],
    // A large sort without a comparator, again and again.
    [
      "local t = {} for i = 1, 70000 do t[i] = -i end while true do table.sort(t) end",
      /time limit of 200 ms exceeded at main\.lua:1/,
    ],
    // Copies of a big string: each is one call, the allocator reads the clock.
    [
      'local s = string.rep("x", 4000000) while true do local u = s:upper() end',
      /time limit of 200 ms exceeded at main\.lua:1/,
    ],
    // utf8.len of a long string, in a loop.
    [
      'local s = string.rep("é", 1000000) while true do utf8.len(s) end',
      /time limit of 200 ms exceeded at main\.lua:1/,
    ],
    // Plain finds of a long needle in a long haystack (lmemfind is O(n·m)).
    [
      'local s, p = string.rep("a", 2000000), string.rep("a", 100000) .. "b" return tostring(s:find(p, 1, true))',
      /time limit of 200 ms exceeded at main\.lua:1/,
    ],
    [
      'local s = string.rep("x", 1e9) return #s',
      /memory limit of 16 MB exceeded \(string\.rep of 1000000000 bytes\) at main\.lua:1/,
    ],
  ];
  for (const [source, expected] of cases) {
    const got = await run(source);
    assert.match(got, expected, `${source}: ${got}`);
  }
});

Deno.test("LuaBudget keeps a stop through pcall, xpcall handlers, coroutines and error objects", async () => {
  const source = `
    local n = 0
    while true do
      pcall(function() while true do n = n + 1 end end)
      xpcall(function() while true do end end, function(e) while true do end end)
      local co = coroutine.wrap(function() pcall(coroutine.yield) while true do end end)
      pcall(co) pcall(co)
    end`;
  assert.match(await run(source), /time limit of 200 ms exceeded at main\.lua:\d+/);
});

Deno.test("LuaBudget gives the library's results where the budget is not reached", async () => {
  assert.equal(
    await run(`local t = {} for i = 1, 5000 do t[i] = 5000 - i end table.sort(t)
      local moved = table.move({ 1, 2, 3 }, 1, 3, 2)
      return table.concat({ t[1], t[5000], #moved, ("a,b"):gsub(",", ";"), utf8.len("héllo"),
        tonumber("42"), ("x"):rep(3, "-") }, " ")`),
    "0 0 4999 4 a;b 5 42 x-x-x",
  );
  assert.equal(
    await run(
      "return tostring(setmetatable ~= nil) .. tostring(debug) .. tostring(collectgarbage)",
    ),
    "0 truenilnil",
  );
  assert.match(
    await run("setmetatable({}, { __gc = function() end })"),
    /^2 main\.lua:1: __gc metamethods are not available/,
  );
});
