-- A port of lstrlib.c's pattern matcher to Lua, run for the calls whose worst case in C is too
-- long to leave unwatched: here every step is a Lua instruction the count hook counts. Same
-- algorithm, same results and errors as the library; a byte class is still tested by the
-- library (one anchored find per byte), and runs and scans go to it in bounded windows, charged.
-- Loaded with (charge, compiler); returns { find, gmatch, gsub } over compiled patterns.
local charge, compiler = ...
local n_find, sub, byte, char, concat = string.find, string.sub, string.byte, string.char, table.concat
local type, tostring, unpack, ipairs = type, tostring, table.unpack, ipairs
local perror, kinds = compiler.perror, compiler.kinds
local ITEM, OPEN, POSCAP, CLOSE, BALANCE, FRONTIER, ENDANCHOR = kinds.ITEM, kinds.OPEN,
  kinds.POSCAP, kinds.CLOSE, kinds.BALANCE, kinds.FRONTIER, kinds.ENDANCHOR
local MAXCAPTURES, MAXCCALLS, WINDOW = 32, 200, 1 << 18
local CAP_UNFINISHED, CAP_POSITION = -1, -2
local STAR, PLUS, MINUS, QUEST = 42, 43, 45, 63

local do_match

local function singlematch(ms, s, item)
  if s > ms.n then return false end
  if item.any then return true end
  local code = item.code
  if code then return byte(ms.src, s) == code end
  return n_find(ms.src, item.anchored, s) ~= nil
end

-- How many bytes from s match item, counted by the library in windows of bounded size.
local function run_length(ms, s, item)
  local n, src = ms.n, ms.src
  if item.any then return n - s + 1 end
  if n - s < WINDOW then
    local _, e = n_find(src, item.run, s)
    charge(e - s + 2)
    return e - s + 1
  end
  local total = 0
  while s <= n do
    local window = sub(src, s, s + WINDOW - 1)
    local _, e = n_find(window, item.run)
    charge(#window)
    total = total + e
    if e < #window then break end
    s = s + e
  end
  return total
end

-- The first position >= s where a match may start (ms.n + 2 when none can).
local function next_start(ms, s, first)
  local n, src = ms.n, ms.src
  local pattern, plain = first.anchored and first.text or char(first.code), first.code ~= nil
  while s <= n do
    local stop = s + WINDOW - 1
    local at
    if stop >= n then
      at = n_find(src, pattern, s, plain)
      charge(n - s + 1)
      return at or n + 2
    end
    at = n_find(sub(src, s, stop), pattern, 1, plain)
    charge(WINDOW)
    if at then return s + at - 1 end
    s = stop + 1
  end
  return n + 2
end

local function max_expand(ms, s, item, pi)
  local i = run_length(ms, s, item)
  while i >= 0 do
    local res = do_match(ms, s + i, pi)
    if res then return res end
    i = i - 1
  end
  return nil
end

local function min_expand(ms, s, item, pi)
  while true do
    local res = do_match(ms, s, pi)
    if res then return res end
    if singlematch(ms, s, item) then s = s + 1 else return nil end
  end
end

local function start_capture(ms, s, pi, what)
  local level = ms.level + 1
  if level > MAXCAPTURES then perror("too many captures") end
  ms.init[level], ms.len[level], ms.level = s, what, level
  local res = do_match(ms, s, pi)
  if not res then ms.level = ms.level - 1 end
  return res
end

local function end_capture(ms, s, pi)
  local l
  for level = ms.level, 1, -1 do
    if ms.len[level] == CAP_UNFINISHED then l = level; break end
  end
  if not l then perror("invalid pattern capture") end
  ms.len[l] = s - ms.init[l]
  local res = do_match(ms, s, pi)
  if not res then ms.len[l] = CAP_UNFINISHED end
  return res
end

local function match_capture(ms, s, l)
  if l < 1 or l > ms.level or ms.len[l] == CAP_UNFINISHED then
    perror("invalid capture index %" .. l)
  end
  local len, init = ms.len[l], ms.init[l]
  if len < 0 or ms.n - s + 1 < len then return nil end
  charge(len)
  if sub(ms.src, init, init + len - 1) == sub(ms.src, s, s + len - 1) then return s + len end
  return nil
end

local function match_balance(ms, s, node)
  local n, src, b, e = ms.n, ms.src, node.b, node.e
  if s > n or byte(src, s) ~= b then return nil end
  local set = "[" .. (n_find(char(b), "%w") and char(b) or "%" .. char(b))
    .. (n_find(char(e), "%w") and char(e) or "%" .. char(e)) .. "]"
  local cont = 1
  s = s + 1
  while s <= n do
    local at = n_find(src, set, s)
    charge((at or n) - s + 1)
    if not at then return nil end
    local c = byte(src, at)
    if c == e then
      cont = cont - 1
      if cont == 0 then return at + 1 end
    else
      cont = cont + 1
    end
    s = at + 1
  end
  return nil
end

local function frontier(ms, s, node)
  local prev = s == 1 and 0 or byte(ms.src, s - 1)
  local cur = s <= ms.n and byte(ms.src, s) or 0
  return n_find(char(prev), node.anchored) == nil and n_find(char(cur), node.anchored) ~= nil
end

do_match = function(ms, s, pi)
  local depth = ms.depth - 1
  if depth == 0 then perror("pattern too complex") end
  ms.depth = depth
  local nodes = ms.nodes
  while true do
    local node = nodes[pi]
    if node == nil then break end
    local kind = node.kind
    if kind == ITEM then
      local q = node.q
      if not singlematch(ms, s, node) then
        if q == STAR or q == QUEST or q == MINUS then
          pi = pi + 1
        else
          s = nil
          break
        end
      elseif not q then
        s, pi = s + 1, pi + 1
      elseif q == QUEST then
        local res = do_match(ms, s + 1, pi + 1)
        if res then s = res; break end
        pi = pi + 1
      else
        if q == PLUS then s = max_expand(ms, s + 1, node, pi + 1)
        elseif q == STAR then s = max_expand(ms, s, node, pi + 1)
        else s = min_expand(ms, s, node, pi + 1) end
        break
      end
    elseif kind == OPEN or kind == POSCAP then
      s = start_capture(ms, s, pi + 1, kind == OPEN and CAP_UNFINISHED or CAP_POSITION)
      break
    elseif kind == CLOSE then
      s = end_capture(ms, s, pi + 1)
      break
    elseif kind == ENDANCHOR then
      if s ~= ms.n + 1 then s = nil end
      break
    else
      if kind == BALANCE then s = match_balance(ms, s, node)
      elseif kind == FRONTIER then s = frontier(ms, s, node) and s or nil
      else s = match_capture(ms, s, node.l) end
      if not s then break end
      pi = pi + 1
    end
  end
  ms.depth = ms.depth + 1
  return s
end

local function state(src, info)
  return { src = src, n = #src, nodes = info.nodes, level = 0, depth = MAXCCALLS, init = {}, len = {} }
end

local function capture(ms, i, s, e)
  if i > ms.level then
    if i ~= 1 then perror("invalid capture index %" .. i) end
    return sub(ms.src, s, e - 1)
  end
  local len, init = ms.len[i], ms.init[i]
  if len == CAP_UNFINISHED then perror("unfinished capture") end
  if len == CAP_POSITION then return init end
  return sub(ms.src, init, init + len - 1)
end

-- The captures of the last match (the whole match when it has none and `whole` is set).
local function captures(ms, s, e, whole)
  local count = ms.level
  if count == 0 then
    if whole then return sub(ms.src, s, e - 1) end
    return
  end
  if count == 1 then return capture(ms, 1, s, e) end
  local out = {}
  for i = 1, count do out[i] = capture(ms, i, s, e) end
  return unpack(out, 1, count)
end

-- Start positions from s on: the next candidate, or beyond the end when no match can start.
local function advance(ms, info, s)
  if info.first and s <= ms.n + 1 then return next_start(ms, s, info.first) end
  return s
end

local function port_find(src, info, init, find)
  local ms = state(src, info)
  local s = info.anchored and init or advance(ms, info, init)
  while s <= ms.n + 1 do
    ms.level, ms.depth = 0, MAXCCALLS
    local e = do_match(ms, s, 1)
    if e then
      if find then return s, e - 1, captures(ms, nil, nil, false) end
      return captures(ms, s, e, true)
    end
    if info.anchored then break end
    s = advance(ms, info, s + 1)
  end
  return nil
end

local function port_gmatch(src, info, init)
  local ms = state(src, info)
  local pos, last = init, nil
  return function()
    local s = advance(ms, info, pos)
    while s <= ms.n + 1 do
      ms.level, ms.depth = 0, MAXCCALLS
      local e = do_match(ms, s, 1)
      if e and e ~= last then
        pos, last = e, e
        return captures(ms, s, e, true)
      end
      s = advance(ms, info, s + 1)
    end
    pos = ms.n + 2
    return nil
  end
end

-- gsub's replacement string, split once into literal text and capture numbers (0: whole match).
local function split_replacement(repl)
  local parts, i, n = {}, 1, #repl
  while true do
    local at = n_find(repl, "%", i, true)
    if not at then break end
    if at > i then parts[#parts + 1] = sub(repl, i, at - 1) end
    local d = byte(repl, at + 1)
    if d == 37 then parts[#parts + 1] = "%"
    elseif d and d >= 48 and d <= 57 then parts[#parts + 1] = d - 48
    else perror("invalid use of '%' in replacement string") end
    i = at + 2
  end
  if i <= n then parts[#parts + 1] = sub(repl, i) end
  return parts
end

local function add_value(ms, out, s, e, repl, kind, parts)
  local value
  if kind == "function" then
    value = repl(captures(ms, s, e, true))
  elseif kind == "table" then
    value = repl[capture(ms, 1, s, e)]
  else
    for _, part in ipairs(parts) do
      if part == 0 then out[#out + 1] = sub(ms.src, s, e - 1)
      elseif type(part) == "number" then out[#out + 1] = tostring(capture(ms, part, s, e))
      else out[#out + 1] = part end
    end
    return true
  end
  if not value then
    out[#out + 1] = sub(ms.src, s, e - 1)
    return false
  end
  local t = type(value)
  if t ~= "string" and t ~= "number" then perror("invalid replacement value (a " .. t .. ")") end
  out[#out + 1] = tostring(value)
  return true
end

local function port_gsub(src, info, repl, max_n)
  local ms = state(src, info)
  local kind = type(repl)
  local parts
  local out, s, last, count, changed = {}, 1, nil, 0, false
  while count < max_n do
    ms.level, ms.depth = 0, MAXCCALLS
    local e = do_match(ms, s, 1)
    if e and e ~= last then
      count = count + 1
      if kind == "string" or kind == "number" then parts = parts or split_replacement(tostring(repl)) end
      changed = add_value(ms, out, s, e, repl, kind, parts) or changed
      s, last = e, e
    elseif s <= ms.n then
      local to = info.anchored and s + 1 or advance(ms, info, s + 1)
      if to > ms.n + 1 then to = ms.n + 1 end
      out[#out + 1] = sub(src, s, to - 1)
      s = to
    else
      break
    end
    if info.anchored then break end
  end
  if not changed then return src, count end
  out[#out + 1] = sub(src, s)
  return concat(out), count
end

return { find = port_find, gmatch = port_gmatch, gsub = port_gsub }
