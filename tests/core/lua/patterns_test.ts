/**
 * The port of lstrlib's matcher (core/lua/pattern_port.lua) against the C library itself, in
 * real wasmoon: random patterns and subjects through find, match, gmatch and gsub must give the
 * same results and the same errors. The entry points run with a zero step budget, so every call
 * takes the port.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { LuaFactory } from "wasmoon";
import compileLua from "../../../core/lua/pattern_compile.lua" with { type: "text" };
import portLua from "../../../core/lua/pattern_port.lua" with { type: "text" };
import patternsLua from "../../../core/lua/patterns.lua" with { type: "text" };

const HARNESS = `
local native = { find = string.find, match = string.match, gmatch = string.gmatch, gsub = string.gsub }
local function chunk(src, name) return load(src, "=" .. name, "t") end
local compiler = chunk(__src.compile, "pattern_compile")()
local port = chunk(__src.port, "pattern_port")(function() end, compiler)
local bounded = chunk(__src.patterns, "patterns")(function() end, 0, compiler, port)

local function pack(...) return { n = select("#", ...), ... } end
local function run(f, ...)
  local r = pack(pcall(f, ...))
  if not r[1] then r[2] = (tostring(r[2]):gsub("^[^:]*:%d+: ", "")) end
  return r
end
local function show(r)
  local out = {}
  for i = 1, r.n do out[i] = type(r[i]) == "string" and string.format("%q", r[i]) or tostring(r[i]) end
  return table.concat(out, ",")
end
local function all(lib, s, p)
  local out, n = {}, 0
  for a, b, c in lib.gmatch(s, p) do
    n = n + 1
    out[#out + 1] = tostring(a) .. "|" .. tostring(b) .. "|" .. tostring(c)
    if n > 40 then break end
  end
  return table.concat(out, ";")
end
local function upper_or_nil(a) if a == "a" then return nil end return string.upper(tostring(a)) end
local lookup = setmetatable({}, { __index = function(_, k) return k == "b" and false or "<" .. tostring(k) .. ">" end })

function compare(s, p, repl)
  local cases = {
    { "find", function(lib) return lib.find(s, p) end },
    { "find init 2", function(lib) return lib.find(s, p, 2) end },
    { "find init -3", function(lib) return lib.find(s, p, -3) end },
    { "match", function(lib) return lib.match(s, p) end },
    { "gmatch", function(lib) return all(lib, s, p) end },
    { "gsub", function(lib) return lib.gsub(s, p, repl) end },
    { "gsub 2", function(lib) return lib.gsub(s, p, repl, 2) end },
    { "gsub fn", function(lib) return lib.gsub(s, p, upper_or_nil) end },
    { "gsub table", function(lib) return lib.gsub(s, p, lookup) end },
  }
  for _, case in ipairs(cases) do
    local a, b = run(case[2], native), run(case[2], bounded)
    if show(a) ~= show(b) then
      return case[1] .. ": C " .. show(a) .. " port " .. show(b)
    end
  end
  return ""
end
`;

async function harness() {
  const factory = new LuaFactory();
  const lua = await factory.createEngine({ injectObjects: false, enableProxy: false });
  lua.global.set("__src", { compile: compileLua, port: portLua, patterns: patternsLua });
  lua.doStringSync(HARNESS);
  const compare = lua.global.get("compare") as (s: string, p: string, r: string) => string;
  return { compare, [Symbol.dispose]: () => lua.global.close() };
}

const ITEMS = [
  "a",
  "b",
  "x",
  " ",
  ".",
  "%a",
  "%d",
  "%s",
  "%w",
  "%p",
  "%A",
  "%S",
  "%%",
  "%.",
  "[ab]",
  "[^a]",
  "[a-c]",
  "[%d_]",
  "[%a-]",
  "[]a]",
  "^",
  "$",
];
const OTHERS = ["(", ")", "()", "%1", "%2", "%bab", "%b()", "%f[%w]", "%f[%W]", "%f[a]"];
const QUANTIFIERS = ["", "", "", "*", "+", "-", "?"];

const item = fc.tuple(fc.constantFrom(...ITEMS), fc.constantFrom(...QUANTIFIERS))
  .map(([i, q]) => i + q);
const token = fc.oneof({ weight: 4, arbitrary: item }, {
  weight: 1,
  arbitrary: fc.constantFrom(...OTHERS),
});
const pattern = fc.array(token, { minLength: 0, maxLength: 6 }).map((t) => t.join(""));
const subject = fc.array(fc.constantFrom(..."abcx .(_)1-"), { maxLength: 12 }).map((c) =>
  c.join("")
);
const replacement = fc.constantFrom("%0", "%1", "<%1>", "%%", "x", "%2", "", "[%0]");

Deno.test("The pattern port gives the C library's results and errors on random patterns", async () => {
  using lua = await harness();
  fc.assert(
    fc.property(subject, pattern, replacement, (s, p, r) => {
      assert.equal(
        lua.compare(s, p, r),
        "",
        `subject ${JSON.stringify(s)} pattern ${JSON.stringify(p)} repl ${r}`,
      );
    }),
    { numRuns: 3000 },
  );
});

Deno.test("The pattern port agrees with the C library on patterns that backtrack and nest", async () => {
  using lua = await harness();
  const cases: [string, string, string][] = [
    ["aaaaaaaaab", ".-.-.-b", "%0"],
    ["  trim me  ", "^%s*(.-)%s*$", "%1"],
    ["key = value; k2 = v2", "(%w+)%s*=%s*(%w+)", "%2=%1"],
    ['{"a":"b","c":"d"}', '"([^"]*)"', "<%1>"],
    ["THE (quick) fox", "%f[%a]%a+", "%0!"],
    ["f(a(b)c) g(d)", "%b()", "[]"],
    ["hello world from Lua", "()(%a+)()", "%2"],
    ["abcabc", "(abc)%1", "x"],
    ["", "", "-"],
    ["abc", "", "-"],
    ["abc", ".-", "-"],
    ["a.b.c", "%.", "/"],
    ["x\0y\0z", "(.-)%z", "%1"],
    ["x\0y\0", "(.-)\0", "%1"],
    ["aaa", "a-$", "%0"],
    ["ab", "((((a))))b", "%4"],
  ];
  for (const [s, p, r] of cases) assert.equal(lua.compare(s, p, r), "", `${s} / ${p}`);
});
