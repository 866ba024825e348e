-- Lua's pattern functions with a bounded cost. Lua patterns backtrack: string.find on 220 "a"s
-- with ".-.-.-.-b" runs for many seconds inside one C call, where no count hook can stop it.
-- Each call here bounds the C matcher's worst case from the pattern's shape and the subject's
-- length. Under `steps` the library function runs as is (the cost is charged, so a loop of
-- cheap calls still reaches a clock check); above it, the port of the library's matcher runs
-- (pattern_port.lua), where the count hook sees every step. Loaded by budget.lua with
-- (charge, steps, compiler, port); returns { find, match, gmatch, gsub }.
local charge, STEPS, compiler, port = ...
local n_find, n_match, n_gmatch, n_gsub = string.find, string.match, string.gmatch, string.gsub
local sub, format = string.sub, string.format
local type, tostring, tonumber, tointeger, error, pcall, getmetatable =
  type, tostring, tonumber, math.tointeger, error, pcall, getmetatable
local compile, cost, PATERR = compiler.compile, compiler.cost, compiler.PATERR
local port_find, port_gmatch, port_gsub = port.find, port.gmatch, port.gsub

local SPECIALS = "[%^%$%*%+%?%.%(%[%%%-]"

local function typename(v)
  if v == nil then return "no value" end
  return type(v)
end

local function text(v, arg, fname)
  local t = type(v)
  if t == "string" then return v end
  if t == "number" then return tostring(v) end
  error(format("bad argument #%d to '%s' (string expected, got %s)", arg, fname, typename(v)), 3)
end

local function integer(v, default, arg, fname)
  if v == nil then return default end
  local i = tointeger(v)
  if i == nil and type(v) == "string" then i = tointeger(tonumber(v)) end
  if i ~= nil then return i end
  local why = type(v) == "number" and "number has no integer representation"
    or "number expected, got " .. typename(v)
  error(format("bad argument #%d to '%s' (%s)", arg, fname, why), 3)
end

-- lstrlib's posrelatI: 1-based start from a possibly negative or zero init.
local function start_of(init, n)
  if init > 0 then return init end
  if init == 0 or init < -n then return 1 end
  return n + init + 1
end

local function pattern_of(p, gm)
  local info, err = compile(p, gm)
  if not info then error(err, 3) end
  return info
end

-- Results of a port call, or its pattern error raised at the line that called the entry point.
local function ported(ok, ...)
  if ok then return ... end
  local e = ...
  if getmetatable(e) == PATERR then error(e.msg, 2) end
  error(e, 0)
end

-- Plain search in windows the library scans in bounded time.
local function plain_find(s, p, init, n, m)
  local step = STEPS // m
  if step < 1 then step = 1 end
  while init + m - 1 <= n do
    local stop = init + step + m - 2
    if stop > n then stop = n end
    local at, e = n_find(sub(s, init, stop), p, 1, true)
    charge((stop - init + 1) * m)
    if at then return init + at - 1, init + e - 1 end
    init = init + step
  end
  return nil
end

local function find_or_match(fname, find)
  return function(s, p, init, plain)
    s, p = text(s, 1, fname), text(p, 2, fname)
    local n = #s
    init = start_of(integer(init, 1, 3, fname), n)
    if init > n + 1 then return nil end
    local m = n - init + 1
    if find and (plain or not n_find(p, SPECIALS)) then
      local c = m * #p
      if c <= STEPS then
        charge(c)
        return n_find(s, p, init, true)
      end
      return plain_find(s, p, init, n, #p)
    end
    local info = pattern_of(p, false)
    local c = cost(info, m, info.anchored and 1 or m + 1)
    if c <= STEPS and not info.risky then
      charge(c)
      if find then return n_find(s, p, init) end
      return n_match(s, p, init)
    end
    return ported(pcall(port_find, s, info, init, find))
  end
end

local function gmatch(s, p, init)
  s, p = text(s, 1, "gmatch"), text(p, 2, "gmatch")
  local n = #s
  init = start_of(integer(init, 1, 3, "gmatch"), n)
  if init > n + 1 then init = n + 1 end
  local info = pattern_of(p, true)
  local m = n - init + 1
  if cost(info, m, m + 1) <= STEPS and not info.risky then
    charge(cost(info, m, m + 1))
    return n_gmatch(s, p, init)
  end
  local iterate = port_gmatch(s, info, init)
  return function() return ported(pcall(iterate)) end
end

-- Whether the library would accept replacement string `repl` for a pattern with `captures`.
local function replacement_ok(repl, captures)
  if n_find(repl, "%%[^%d%%]") or n_find(repl, "%%$") then return false end
  local top = captures > 0 and captures or 1
  for d in n_gmatch(repl, "%%(%d)") do
    if d + 0 > top then return false end
  end
  return true
end

-- A function or table replacement checked as lstrlib checks it, raising at the gsub's line.
local function checked(repl, kind)
  return function(...)
    local value
    if kind == "table" then value = repl[(...)] else value = repl(...) end
    local t = type(value)
    if value and t ~= "string" and t ~= "number" then
      error("invalid replacement value (a " .. t .. ")", 4)
    end
    return value
  end
end

local function gsub(s, p, repl, max_n)
  s, p = text(s, 1, "gsub"), text(p, 2, "gsub")
  local n = #s
  local kind = type(repl)
  if kind ~= "string" and kind ~= "number" and kind ~= "table" and kind ~= "function" then
    error(format("bad argument #3 to 'gsub' (string/function/table expected, got %s)",
      typename(repl)), 2)
  end
  max_n = integer(max_n, n + 1, 4, "gsub")
  local info = pattern_of(p, false)
  local c = cost(info, n, info.anchored and 1 or n + 2)
  if kind == "string" then c = c + (n + 1) * #repl end
  local simple = kind ~= "string" or replacement_ok(repl, info.captures)
  if c <= STEPS and not info.risky and simple then
    charge(c)
    if kind == "table" or kind == "function" then return n_gsub(s, p, checked(repl, kind), max_n) end
    return n_gsub(s, p, repl, max_n)
  end
  return ported(pcall(port_gsub, s, info, repl, max_n))
end

return {
  find = find_or_match("find", true),
  match = find_or_match("match", false),
  gmatch = gmatch,
  gsub = gsub,
  port = {
    find = function(s, p, init) return ported(pcall(port_find, s, pattern_of(p, false), init or 1, true)) end,
    match = function(s, p, init) return ported(pcall(port_find, s, pattern_of(p, false), init or 1, false)) end,
    gmatch = function(s, p)
      local iterate = port_gmatch(s, pattern_of(p, true), 1)
      return function() return ported(pcall(iterate)) end
    end,
    gsub = function(s, p, repl, max_n) return ported(pcall(port_gsub, s, pattern_of(p, false), repl, max_n or #s + 1)) end,
  },
}
