-- A small pure-Lua JSON codec mounted in every adapter VM as the global `json`.
-- Strings cross the JS boundary, tables never do: decoding and encoding here is several
-- times cheaper than marshalling objects through wasmoon's bridge (RECIPES.md §4).
local json = {}

local byte, char, find, sub, format, gsub, concat =
  string.byte, string.char, string.find, string.sub, string.format, string.gsub, table.concat
local tointeger, type, pairs, ipairs, setmetatable, getmetatable, error, tostring, select =
  math.tointeger, type, pairs, ipairs, setmetatable, getmetatable, error, tostring, select

-- JSON null, distinct from a missing key: `v == json.null`.
json.null = setmetatable({}, { __tostring = function() return "null" end })

local array_mt = { __jsontype = "array" }
local object_mt = { __jsontype = "object" }

-- Mark a table as a JSON array, so an empty one encodes as [] rather than {}.
function json.array(t) return setmetatable(t or {}, array_mt) end
-- Mark a table as a JSON object, so an empty one encodes as {}.
function json.object(t) return setmetatable(t or {}, object_mt) end

---------------------------------------------------------------------------- encode
local escapes = {
  ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
}
local function escape_char(c)
  return escapes[c] or format("\\u%04x", byte(c))
end

local function encode_string(s)
  if find(s, '[%c"\\]') then s = gsub(s, '[%c"\\]', escape_char) end
  return '"' .. s .. '"'
end

local encode_value

local function is_array(t)
  local mt = getmetatable(t)
  if mt == array_mt then return true end
  if mt == object_mt then return false end
  if t[1] ~= nil then return true end
  return false
end

local function encode_table(t, out, n, depth)
  if depth > 100 then error("json.encode: nesting deeper than 100", 0) end
  if is_array(t) then
    n = n + 1; out[n] = "["
    for i = 1, #t do
      if i > 1 then n = n + 1; out[n] = "," end
      n = encode_value(t[i], out, n, depth + 1)
    end
    n = n + 1; out[n] = "]"
    return n
  end
  n = n + 1; out[n] = "{"
  local first = true
  for k, v in pairs(t) do
    if type(k) ~= "string" then
      error("json.encode: object key of type " .. type(k) .. " (want string)", 0)
    end
    if not first then n = n + 1; out[n] = "," end
    first = false
    n = n + 1; out[n] = encode_string(k)
    n = n + 1; out[n] = ":"
    n = encode_value(v, out, n, depth + 1)
  end
  n = n + 1; out[n] = "}"
  return n
end

encode_value = function(v, out, n, depth)
  local t = type(v)
  if t == "string" then
    n = n + 1; out[n] = encode_string(v)
  elseif t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then
      error("json.encode: cannot encode " .. tostring(v), 0)
    end
    local i = tointeger(v)
    n = n + 1; out[n] = i and format("%d", i) or format("%.17g", v)
  elseif t == "boolean" then
    n = n + 1; out[n] = v and "true" or "false"
  elseif v == nil or v == json.null then
    n = n + 1; out[n] = "null"
  elseif t == "table" then
    n = encode_table(v, out, n, depth)
  else
    error("json.encode: cannot encode a " .. t, 0)
  end
  return n
end

-- Encode a Lua value as JSON text.
function json.encode(v)
  local out = {}
  encode_value(v, out, 0, 0)
  return concat(out)
end

---------------------------------------------------------------------------- decode
local decode_value

local function decode_error(s, i, what)
  error(format("json.decode: %s at character %d", what, i), 0)
end

local function skip(s, i)
  local _, e = find(s, "^[ \n\r\t]*", i)
  return e + 1
end

local unescapes = {
  ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t",
}

local function codepoint_to_utf8(n)
  if n < 0x80 then return char(n) end
  if n < 0x800 then return char(0xC0 | (n >> 6), 0x80 | (n & 0x3F)) end
  if n < 0x10000 then
    return char(0xE0 | (n >> 12), 0x80 | ((n >> 6) & 0x3F), 0x80 | (n & 0x3F))
  end
  return char(0xF0 | (n >> 18), 0x80 | ((n >> 12) & 0x3F), 0x80 | ((n >> 6) & 0x3F),
    0x80 | (n & 0x3F))
end

local function decode_string(s, i)
  -- i points at the opening quote
  local j = i + 1
  local _, e = find(s, '^[^"\\]*"', j)
  if e then return sub(s, j, e - 1), e + 1 end -- fast path: no escapes
  local parts, n = {}, 0
  while true do
    local a = find(s, '["\\]', j)
    if not a then decode_error(s, i, "unterminated string") end
    if a > j then n = n + 1; parts[n] = sub(s, j, a - 1) end
    if byte(s, a) == 34 then return concat(parts), a + 1 end
    local c = sub(s, a + 1, a + 1)
    if c == "u" then
      local hex = sub(s, a + 2, a + 5)
      local cp = tonumber(hex, 16)
      if not cp or #hex < 4 then decode_error(s, a, "bad \\u escape") end
      local nextj = a + 6
      if cp >= 0xD800 and cp <= 0xDBFF and sub(s, nextj, nextj + 1) == "\\u" then
        local lo = tonumber(sub(s, nextj + 2, nextj + 5), 16)
        if lo and lo >= 0xDC00 and lo <= 0xDFFF then
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
          nextj = nextj + 6
        end
      end
      n = n + 1; parts[n] = codepoint_to_utf8(cp)
      j = nextj
    else
      local u = unescapes[c]
      if not u then decode_error(s, a, "bad escape") end
      n = n + 1; parts[n] = u
      j = a + 2
    end
  end
end

local function decode_array(s, i, depth)
  local t, n = setmetatable({}, array_mt), 0
  i = skip(s, i + 1)
  if byte(s, i) == 93 then return t, i + 1 end
  while true do
    local v
    v, i = decode_value(s, i, depth + 1)
    n = n + 1; t[n] = v
    i = skip(s, i)
    local c = byte(s, i)
    if c == 93 then return t, i + 1 end
    if c ~= 44 then decode_error(s, i, "expected ',' or ']'") end
    i = skip(s, i + 1)
  end
end

local function decode_object(s, i, depth)
  local t = setmetatable({}, object_mt)
  i = skip(s, i + 1)
  if byte(s, i) == 125 then return t, i + 1 end
  while true do
    if byte(s, i) ~= 34 then decode_error(s, i, "expected a string key") end
    local k
    k, i = decode_string(s, i)
    i = skip(s, i)
    if byte(s, i) ~= 58 then decode_error(s, i, "expected ':'") end
    local v
    v, i = decode_value(s, skip(s, i + 1), depth + 1)
    t[k] = v
    i = skip(s, i)
    local c = byte(s, i)
    if c == 125 then return t, i + 1 end
    if c ~= 44 then decode_error(s, i, "expected ',' or '}'") end
    i = skip(s, i + 1)
  end
end

decode_value = function(s, i, depth)
  if depth > 200 then decode_error(s, i, "nesting too deep") end
  local c = byte(s, i)
  if c == 34 then return decode_string(s, i) end
  if c == 123 then return decode_object(s, i, depth) end
  if c == 91 then return decode_array(s, i, depth) end
  if c == 116 and sub(s, i, i + 3) == "true" then return true, i + 4 end
  if c == 102 and sub(s, i, i + 4) == "false" then return false, i + 5 end
  if c == 110 and sub(s, i, i + 3) == "null" then return json.null, i + 4 end
  local a, e = find(s, "^-?%d+%.?%d*[eE]?[-+]?%d*", i)
  if a then
    local v = tonumber(sub(s, a, e))
    if v == nil then decode_error(s, i, "bad number") end
    return v, e + 1
  end
  decode_error(s, i, "unexpected character")
end

-- Decode JSON text; `null` becomes json.null. Raises an error naming the position.
function json.decode(s)
  if type(s) ~= "string" then error("json.decode: expected a string, got " .. type(s), 2) end
  local v, i = decode_value(s, skip(s, 1), 0)
  i = skip(s, i)
  if i <= #s then decode_error(s, i, "trailing text") end
  return v
end

return json
