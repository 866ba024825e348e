-- The Lua half of the budget every HomeAgent Lua VM runs under (adapter scripts and plugins).
-- The host half (core/lua/budget.ts) counts instructions and time in a count hook that every
-- thread and coroutine inherits, and caps memory in the allocator. This chunk, loaded before any
-- other, closes what the hook cannot see: a script's own pcall keeping a stop, finalizers that
-- would run outside any call, hooks a script could remove, and C library functions whose cost is
-- far more than the one instruction that calls them (they are charged by their size, so a loop
-- of them reaches a clock check; pattern matching is bounded by patterns.lua). Returns the value
-- the host raises to stop a call.
local sources, check, note, memory_limit, free, steps, internal = __budget_sources,
  __budget_check, __budget_note, __budget_memory, __budget_free, __budget_steps, __budget_internal
__budget_sources, __budget_check, __budget_note, __budget_memory, __budget_free, __budget_steps,
  __budget_internal = nil, nil, nil, nil, nil, nil, nil

local raw_pcall, raw_xpcall, raw_error, raw_load, raw_setmetatable = pcall, xpcall, error, load, setmetatable
local rawget, type, select, tostring, raw_tonumber = rawget, type, select, tostring, tonumber
local getinfo = debug.getinfo
local co = coroutine
local raw_resume, raw_close = co.resume, co.close
local s_rep, s_byte, s_find, s_gsub = string.rep, string.byte, string.find, string.gsub
local t_insert, t_remove, t_move, t_sort, t_concat, t_unpack =
  table.insert, table.remove, table.move, table.sort, table.concat, table.unpack
local u_len, u_offset, u_codepoint = utf8.len, utf8.offset, utf8.codepoint
local maxinteger, tointeger, floor, log = math.maxinteger, math.tointeger, math.floor, math.log
local collect = collectgarbage


local LIMIT = raw_setmetatable({}, {
  __tostring = function() return "Lua budget exceeded" end,
  __metatable = "budget",
})
local MEMERR = "not enough memory"

local INTERNAL = {}
for _, name in ipairs(internal) do INTERNAL[name] = true end
-- "chunk:line" of the innermost running script function (not this library's).
local function where()
  for level = 2, 64 do
    local info = getinfo(level, "Sl")
    if not info then break end
    if info.currentline > 0 and not INTERNAL[info.short_src] then
      return info.short_src .. ":" .. info.currentline
    end
  end
  return ""
end

-- Stop the running call for its `kind` budget.
local function stop(kind, detail)
  note(kind, detail or "", where())
  raw_error(LIMIT, 0)
end

local spent = 0
-- Count `cost` steps of C work (tens of nanoseconds each at most); every `steps` of them the host reads
-- the clock, so the deadline holds between count-hook events too.
local function charge(cost)
  spent = spent + cost
  if spent >= steps then
    spent = 0
    if check() then raw_error(LIMIT, 0) end
  end
end

-- A stop passes through every way a script could catch it.
local function keep_stop(ok, ...)
  if not ok then
    local e = ...
    if e == LIMIT or e == MEMERR then raw_error(e, 0) end
  end
  return ok, ...
end
pcall = function(f, ...) return keep_stop(raw_pcall(f, ...)) end
xpcall = function(f, handler, ...)
  return keep_stop(raw_xpcall(f, function(e)
    if e == LIMIT then return e end
    return handler(e)
  end, ...))
end
co.resume = function(thread, ...) return keep_stop(raw_resume(thread, ...)) end
co.close = function(thread) return keep_stop(raw_close(thread)) end

-- Finalizers run whenever the collector does, inside no call and so under no budget.
setmetatable = function(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    raw_error("__gc metamethods are not available in HomeAgent Lua", 2)
  end
  return raw_setmetatable(t, mt)
end

local function count(v)
  local n = tointeger(v)
  if n == nil and type(v) == "string" then n = tointeger(raw_tonumber(v)) end
  return n
end

string.rep = function(s, n, sep)
  local times = count(n)
  if times and times > 0 and (type(s) == "string" or type(s) == "number") then
    local size = #tostring(s) * times
    if type(sep) == "string" or type(sep) == "number" then size = size + #tostring(sep) * (times - 1) end
    -- The library builds the result in a buffer and then copies it: twice its size at once.
    if size > memory_limit or size > 1048576 and 2 * size > free() then
      if size <= memory_limit then
        charge(memory_limit - free())
        collect("collect")
      end
      if size > memory_limit or 2 * size > free() then
        stop("memory", "string.rep of " .. floor(size) .. " bytes")
      end
    end
    charge(size)
  end
  return s_rep(s, n, sep)
end

string.byte = function(s, i, j)
  if type(s) == "string" and j ~= nil then charge(#s) end
  return s_byte(s, i, j)
end

local function length(t)
  if type(t) == "table" then return #t end
  return 0
end

table.insert = function(t, ...)
  if select("#", ...) > 1 then charge(length(t)) end
  return t_insert(t, ...)
end

table.remove = function(t, ...)
  charge(length(t))
  return t_remove(t, ...)
end

table.concat = function(t, sep, i, j)
  local a, b = count(i) or 1, count(j) or length(t)
  if b > a then charge(b - a) end
  return t_concat(t, sep, i, j)
end

table.unpack = function(t, i, j)
  local a, b = count(i) or 1, count(j) or length(t)
  if b > a then charge(b - a) end
  return t_unpack(t, i, j)
end

local CHUNK = 1 << 16
-- table.move walks its whole range in C, even over nothing: large ranges go in slices.
table.move = function(a1, f, e, t, a2)
  local first, last, to = count(f), count(e), count(t)
  if not (first and last and to) or last - first < CHUNK or last < first then
    return t_move(a1, f, e, t, a2)
  end
  if first <= 0 and last >= maxinteger + first then
    raw_error("bad argument #3 to 'move' (too many elements to move)", 2)
  end
  if to > maxinteger - (last - first) then
    raw_error("bad argument #4 to 'move' (destination wrap around)", 2)
  end
  local dest = a2 == nil and a1 or a2
  local backwards = dest == a1 and to > first and to <= last
  local size = last - first + 1
  local done = 0
  while done < size do
    local n = size - done < CHUNK and size - done or CHUNK
    local from = backwards and last - done - n + 1 or first + done
    t_move(a1, from, from + n - 1, to + (from - first), dest)
    charge(n)
    done = done + n
  end
  return dest
end

local function less(a, b) return a < b end
-- Sorting without a comparator runs entirely in C: numbers up to 65,536 (tens of milliseconds at
-- worst), strings (whose comparisons cost their length) up to 4,096; larger tables are given a
-- Lua comparator the hook can see.
table.sort = function(t, comp)
  local n = length(t)
  if n > 1 then charge(n * log(n, 2)) end
  if comp == nil and n > 4096 and (n > 65536 or type(t[1]) ~= "number") then comp = less end
  return t_sort(t, comp)
end

utf8.len = function(s, ...)
  if type(s) == "string" then charge(#s) end
  return u_len(s, ...)
end
utf8.offset = function(s, ...)
  if type(s) == "string" then charge(#s) end
  return u_offset(s, ...)
end
utf8.codepoint = function(s, ...)
  if type(s) == "string" then charge(#s) end
  return u_codepoint(s, ...)
end

tonumber = function(v, ...)
  if type(v) == "string" then charge(#v) end
  return raw_tonumber(v, ...)
end

local function chunk(name) return raw_load(sources[name], "=" .. name, "t") end
local compiler = chunk("pattern_compile")()
local port = chunk("pattern_port")(charge, compiler)
local patterns = chunk("patterns")(charge, steps, compiler, port)

-- For the host's own prelude, which takes them before any script runs: the unwrapped pcall and
-- xpcall (a stop passes through them too: the host reads the breach, not the error), the
-- library's pattern functions with the charge (for its own code, whose patterns are linear).
__budget_raw = { pcall = raw_pcall, xpcall = raw_xpcall, charge = charge, find = s_find,
  gsub = s_gsub, byte = s_byte, concat = t_concat, tonumber = raw_tonumber }
string.find, string.match, string.gmatch, string.gsub =
  patterns.find, patterns.match, patterns.gmatch, patterns.gsub

-- What would let a script remove the hook, run a collection outside its charge, or write to the
-- daemon's own stdout and stderr.
debug, collectgarbage, print, warn = nil, nil, nil, nil

return LIMIT
