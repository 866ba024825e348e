-- Lua patterns compiled into nodes, with the parts of a bound on the C matcher's worst case that
-- depend on the pattern alone (patterns.lua adds the subject's length). Shared by the entry
-- points and by the port of lstrlib's matcher (pattern_port.lua). Returns { compile, cost, ... }.
local n_find, sub, byte, char = string.find, string.sub, string.byte, string.char
local error, setmetatable, ipairs = error, setmetatable, ipairs

local MAXCAPTURES, MAXCCALLS = 32, 200
local ITEM, OPEN, POSCAP, CLOSE, BACKREF, BALANCE, FRONTIER, ENDANCHOR = 1, 2, 3, 4, 5, 6, 7, 8
local STAR, PLUS, MINUS, QUEST = 42, 43, 45, 63

-- A pattern error raised inside the matcher; the entry function re-raises it at the caller's line.
local PATERR = {}
local function perror(msg) error(setmetatable({ msg = msg }, PATERR), 0) end
-- Items ------------------------------------------------------------------------------------

local function class_end(p, i, plen)
  local c = byte(p, i)
  i = i + 1
  if c == 37 then
    if i > plen then return nil, "malformed pattern (ends with '%')" end
    return i + 1
  elseif c == 91 then
    if byte(p, i) == 94 then i = i + 1 end
    repeat
      if i > plen then return nil, "malformed pattern (missing ']')" end
      local cc = byte(p, i)
      i = i + 1
      if cc == 37 and i <= plen then i = i + 1 end
    until byte(p, i) == 93
    return i + 1
  end
  return i
end

local function make_item(text)
  local c = byte(text, 1)
  if #text == 1 and c == 46 then return { kind = ITEM, any = true, text = text } end
  if c == 37 or c == 91 then
    return { kind = ITEM, text = text, anchored = "^" .. text, run = "^" .. text .. "*" }
  end
  local esc = n_find(text, "^%w") and text or "%" .. text
  return { kind = ITEM, code = c, text = esc, run = "^" .. esc .. "*" }
end

local members_cache, members_count = {}, 0
-- The bytes an item (or a %b opener) matches, as a 0..255 -> boolean table.
local function members(item)
  if item.any then return nil end
  local key = item.text
  local m = members_cache[key]
  if m then return m end
  m = {}
  if item.code then
    for c = 0, 255 do m[c] = c == item.code end
  else
    for c = 0, 255 do m[c] = n_find(char(c), item.anchored) ~= nil end
  end
  if members_count > 256 then members_cache, members_count = {}, 0 end
  members_cache[key], members_count = m, members_count + 1
  return m
end

-- Compiling ----------------------------------------------------------------------------------

local function compile_node(p, i, plen, nodes)
  local c, d = byte(p, i), byte(p, i + 1)
  if c == 40 then
    if d == 41 then nodes[#nodes + 1] = { kind = POSCAP }; return i + 2 end
    nodes[#nodes + 1] = { kind = OPEN }
    return i + 1
  elseif c == 41 then
    nodes[#nodes + 1] = { kind = CLOSE }
    return i + 1
  elseif c == 36 and i == plen then
    nodes[#nodes + 1] = { kind = ENDANCHOR }
    return i + 1
  elseif c == 37 and d == 98 then
    if i + 3 > plen then return nil, "malformed pattern (missing arguments to '%b')" end
    nodes[#nodes + 1] = { kind = BALANCE, b = byte(p, i + 2), e = byte(p, i + 3),
      code = byte(p, i + 2), text = "%b" .. sub(p, i + 2, i + 3) }
    return i + 4
  elseif c == 37 and d == 102 then
    if byte(p, i + 2) ~= 91 then return nil, "missing '[' after '%f' in pattern" end
    local e, err = class_end(p, i + 2, plen)
    if not e then return nil, err end
    nodes[#nodes + 1] = { kind = FRONTIER, anchored = "^" .. sub(p, i + 2, e - 1) }
    return e
  elseif c == 37 and d and d >= 48 and d <= 57 then
    nodes[#nodes + 1] = { kind = BACKREF, l = d - 48 }
    return i + 2
  end
  local e, err = class_end(p, i, plen)
  if not e then return nil, err end
  local item = make_item(sub(p, i, e - 1))
  local q = byte(p, e)
  if q == STAR or q == PLUS or q == MINUS or q == QUEST then
    item.q = q
    e = e + 1
  else
    item.q = false
  end
  nodes[#nodes + 1] = item
  return e
end

local function overlaps(x, y)
  if x == nil or y == nil then return true end
  for c = 0, 255 do
    if x[c] and y[c] then return true end
  end
  return false
end

-- How quantified node j can cost: nil when it needs more than one deep attempt (it branches),
-- else the nodes one failed attempt visits, and whether its first attempt always succeeds (what
-- follows matches the empty string anywhere). It does not branch in that case either, nor when
-- what follows cannot start with a byte node j matches.
local function attempt_cost(nodes, j)
  local x, clash, walked = members(nodes[j]), false, 1
  for i = j + 1, #nodes do
    local node = nodes[i]
    local kind = node.kind
    if kind == ITEM or kind == BALANCE then
      clash = clash or overlaps(x, members(node))
      if kind == BALANCE or not node.q or node.q == PLUS then return not clash and walked or nil end
    elseif kind == ENDANCHOR then
      return not clash and walked or nil
    elseif kind == FRONTIER or kind == BACKREF then
      return nil
    end
    walked = walked + 1
  end
  return walked, true
end

-- The C matcher's work, node by node: a node after k branching quantifiers (and q branching
-- "?") is visited up to 2^q * C(m+k, k) times, since k quantifiers split m bytes in at most that
-- many ways. A visit costs one step, or about m steps for a node that scans (a quantifier's
-- count and failed attempts, %b, a back reference). terms[k+1] = { once, per_byte } sums them.
-- A quantifier whose first attempt always succeeds is reached only by a match, and matches do
-- not overlap: its count is paid once per call (info.settled), not once per start.
local function analyse(info, nodes)
  local k, qfactor, nested, captures, depth, risky, settled = 0, 1, 0, 0, 0, false, 0
  local terms = { { 0, 0 } }
  local function add(once, per_byte)
    local term = terms[k + 1]
    term[1], term[2] = term[1] + once * qfactor, term[2] + per_byte * qfactor
  end
  for j, node in ipairs(nodes) do
    local kind = node.kind
    -- A set is tested item by item: a long one costs more per byte.
    local weight = kind == ITEM and node.anchored and 1 + #node.text // 4 or 1
    if kind == ITEM and node.q then
      nested = nested + 1
      local steps, succeeds = attempt_cost(nodes, j)
      if succeeds then
        add(weight, 0)
        settled = settled + steps + weight
      else
        add(weight, steps and steps + weight or weight)
      end
      if not steps then
        if node.q == QUEST then qfactor = qfactor * 2 else k = k + 1; terms[k + 1] = { 0, 0 } end
      end
    elseif kind == BALANCE or kind == BACKREF then
      add(1, 1)
      risky = risky or kind == BACKREF
    else
      add(weight, 0)
      if kind == OPEN or kind == POSCAP then
        nested, captures = nested + 1, captures + 1
        if kind == OPEN then depth = depth + 1 end
      elseif kind == CLOSE then
        nested, depth = nested + 1, depth - 1
        if depth < 0 then risky = true end
      end
    end
  end
  info.terms, info.captures, info.settled = terms, captures, settled
  -- A pattern whose C matcher may raise at run time would have the error reported at this
  -- library's line, not the script's: such patterns always take the port.
  info.risky = risky or depth ~= 0 or nested >= MAXCCALLS * 3 // 4 or captures >= MAXCAPTURES
  -- A mandatory first item lets the scan skip to the next byte that item matches.
  for _, node in ipairs(nodes) do
    local kind = node.kind
    if kind == ITEM then
      if not node.any and (node.q == false or node.q == PLUS) then info.first = node end
      break
    elseif kind == BALANCE then
      info.first = node
      break
    elseif kind ~= OPEN and kind ~= POSCAP then
      break
    end
  end
end

local compiled_cache, compiled_count = { [true] = {}, [false] = {} }, 0
-- The compiled form of pattern p, or nil and the error message. gmatch reads a leading "^"
-- as a plain character, as lstrlib does.
local function compile(p, gm)
  local cache = compiled_cache[gm]
  local info = cache[p]
  if info then return info end
  local plen, i, nodes = #p, 1, {}
  info = { nodes = nodes, plen = plen, anchored = false }
  if not gm and byte(p, 1) == 94 then
    info.anchored = true
    i = 2
  end
  while i <= plen do
    local e, err = compile_node(p, i, plen, nodes)
    if not e then return nil, err end
    i = e
  end
  analyse(info, nodes)
  if compiled_count > 512 then
    compiled_cache, compiled_count = { [true] = {}, [false] = {} }, 0
    cache = compiled_cache[gm]
  end
  cache[p], compiled_count = info, compiled_count + 1
  return info
end

-- The C matcher's worst case, in steps, on m subject bytes from `starts` start positions.
local function cost(info, m, starts)
  local total, ways = 0, 1
  for k, term in ipairs(info.terms) do
    if k > 1 then ways = ways * (m + k - 1) / (k - 1) end
    total = total + ways * (term[1] + term[2] * (m + 1))
  end
  return starts * (total + 1) + info.settled * (m + 1)
end

return {
  compile = compile,
  cost = cost,
  perror = perror,
  PATERR = PATERR,
  kinds = { ITEM = ITEM, OPEN = OPEN, POSCAP = POSCAP, CLOSE = CLOSE, BACKREF = BACKREF,
    BALANCE = BALANCE, FRONTIER = FRONTIER, ENDANCHOR = ENDANCHOR },
}
