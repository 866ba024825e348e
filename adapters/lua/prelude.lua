-- Runs once in every adapter VM, after core's budget.lua and before the adapter script: mounts
-- `json`, wraps the host functions, removes what a script must not reach, defines the OpenAI
-- shape every script starts from (`openai` and the five defaults), and the entry points the
-- TypeScript runtime calls (each inside the VM's budget, held by the host). Globals starting
-- with "__" belong to the runtime.
local json_src, host_log, host_http, raw = __json_src, __host_log, __host_http, __budget_raw
__json_src, __host_log, __host_http, __budget_raw = nil, nil, nil, nil
local raw_load, raw_xpcall, charge = load, raw.xpcall, raw.charge
local error, type, tostring, select, rawget, getmetatable, setmetatable, G =
  error, type, tostring, select, rawget, getmetatable, setmetatable, _G
-- This file's own searches are plain and its joins linear: the library's functions, charged.
local find, sub, concat = raw.find, string.sub, raw.concat

-- json.lua's patterns are all linear, so it gets the library's find and gsub, charged by the
-- bytes each call scans, instead of the analysing wrappers (a decode makes many small calls);
-- and the library's byte, concat and tonumber, whose cost those scans already bound.
local n_find, n_gsub = raw.find, raw.gsub
local json_string = setmetatable({
  byte = raw.byte,
  find = function(s, p, i)
    local a, e = n_find(s, p, i)
    charge((e or #s) - (i or 1) + 1)
    return a, e
  end,
  gsub = function(s, p, r)
    charge(#s)
    return n_gsub(s, p, r)
  end,
}, { __index = string })
local json_env = setmetatable({
  string = json_string,
  table = setmetatable({ concat = raw.concat }, { __index = table }),
  tonumber = raw.tonumber,
}, { __index = G })
json = raw_load(json_src, "=json.lua", "t", json_env)()

local LOG_MAX = 8192
local function clip(text)
  text = tostring(text)
  if #text > LOG_MAX then return sub(text, 1, LOG_MAX) .. "..." end
  return text
end

-- log(level?, message): level is "debug", "info", "warn" or "error" (default "info").
function log(a, b)
  if b == nil then host_log("info", clip(a)) else host_log(tostring(a), clip(b)) end
end

-- print(...) goes to the log, as the daemon's stdout is not the script's.
function print(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  host_log("info", clip(concat(parts, "\t")))
end

local function http(method, url, body, options)
  if type(url) ~= "string" then error("http_" .. method .. ": url must be a string", 3) end
  local opts = options or {}
  local headers = opts.headers and json.encode(opts.headers) or "{}"
  local reply = host_http(method, url, body or "", headers, tonumber(opts.timeout_ms) or 0):await()
  local decoded = json.decode(reply)
  if decoded.error then error("http_" .. method .. " " .. url .. ": " .. decoded.error, 3) end
  return decoded
end
-- http_get(url, {headers=, timeout_ms=}) -> {status=, body=, headers=}; only inside headers()
-- and transform_request(), and only to the source's own host.
function http_get(url, options) return http("get", url, nil, options) end
-- http_post(url, body_string, {headers=, timeout_ms=}) -> {status=, body=, headers=}.
function http_post(url, body, options) return http("post", url, body, options) end

for _, name in ipairs({ "os", "io", "require", "load", "dofile", "loadfile", "package",
  "coroutine", "loadstring" }) do
  G[name] = nil
end

-- The OpenAI shape. The unified format is OpenAI's chat-completions JSON, so an adapter for an
-- OpenAI-compatible API is these defaults plus what differs: a script redefines only those
-- globals, and may call the defaults to extend them (`openai.headers(config)`, then add a
-- header). A full script that defines all five itself works as before.
local codec = json
openai = {}

function openai.endpoint(config, stream) return "/chat/completions" end

-- Bearer auth when the source has a key (no header without one, as the native client does).
function openai.headers(config)
  local key = config.api_key
  if key == nil or key == "" then return {} end
  return { authorization = "Bearer " .. key }
end

function openai.transform_request(body) return body end

-- A user message's OpenAI content (a string, or text and image_url parts) as a list of
-- { text = … } and { mime = …, data = … } (base64 from a data: URL) in order, so a script
-- writes each in its provider's own format. An image_url that is not a data: URL is kept
-- as { url = … } for the script to refuse or pass on.
function openai.content_parts(content)
  if type(content) ~= "table" then return { { text = content ~= json.null and content or "" } } end
  local parts = {}
  for _, part in ipairs(content) do
    if part.type == "text" then
      parts[#parts + 1] = { text = part.text }
    elseif part.type == "image_url" and type(part.image_url) == "table" then
      local url = part.image_url.url or ""
      local comma = find(url, ",", 1, true)
      local head = comma and sub(url, 1, comma - 1) or ""
      if sub(head, 1, 5) == "data:" and sub(head, -7) == ";base64" then
        parts[#parts + 1] = { mime = sub(head, 6, -8), data = sub(url, comma + 1) }
      else
        parts[#parts + 1] = { url = url }
      end
    end
  end
  return parts
end
function openai.transform_response(body) return body end
function openai.transform_stream_chunk(line, state) return line end

-- openai.rewrite(text, marker, edit): `text` as it is unless it holds `marker` (plain text, or
-- a function(text) that says whether it needs rewriting), so most chunks cost one search; else
-- edit(doc) on the decoded JSON, which changes doc in place (sent re-encoded) or returns the
-- text to send instead.
function openai.rewrite(text, marker, edit)
  if type(marker) == "function" then
    if not marker(text) then return text end
  else
    charge(#text)
    if not find(text, marker, 1, true) then return text end
  end
  local doc = codec.decode(text)
  local replaced = edit(doc)
  if replaced ~= nil then return replaced end
  return codec.encode(doc)
end

endpoint, headers = openai.endpoint, openai.headers
transform_request, transform_response = openai.transform_request, openai.transform_response
transform_stream_chunk = openai.transform_stream_chunk

local FAILED = "\1error"
local last_error = nil
local streams = {}

local function handler(e)
  if type(e) == "table" then return e end
  return tostring(e)
end

-- Call fn(a, b); a script error becomes FAILED with the message kept for __last_error. A
-- budget stop allocates nothing here: the host reads the breach, not this result.
local function run(fn, a, b)
  local ok, result = raw_xpcall(fn, handler, a, b)
  if ok then return result end
  if getmetatable(result) == "budget" then return FAILED end
  if type(result) == "table" then
    last_error = tostring(result.message or result[1] or "error object")
  else
    last_error = result
  end
  return FAILED
end

local function defined(name)
  local fn = rawget(G, name)
  if type(fn) ~= "function" then
    last_error = "function " .. name .. " is not defined"
    return nil
  end
  return fn
end

-- Load the adapter script text; returns "ok" or FAILED.
function __load(source, chunkname)
  local chunk, problem = raw_load(source, "@" .. chunkname, "t", G)
  if not chunk then
    last_error = problem
    return FAILED
  end
  if run(chunk) == FAILED then return FAILED end
  return "ok"
end

-- Call global `name` with one string argument (transform_*).
function __invoke(name, arg)
  local fn = defined(name)
  if not fn then return FAILED end
  return (run(fn, arg))
end

-- endpoint(config, stream) with the config as JSON text.
function __endpoint(config_json, stream)
  local fn = defined("endpoint")
  if not fn then return FAILED end
  return (run(function() return fn(json.decode(config_json), stream) end))
end

-- headers(config) with the config as JSON text; the header table comes back as JSON text.
function __headers(config_json)
  local fn = defined("headers")
  if not fn then return "{}" end
  return (run(function()
    local headers = fn(json.decode(config_json))
    if headers == nil then return "{}" end
    if type(headers) ~= "table" then error("headers() must return a table", 0) end
    return json.encode(json.object(headers))
  end))
end

-- transform_stream_chunk(line, state) with a state table kept per stream id (the hot path: a
-- global lookup and one protected call, nothing more).
function __chunk(id, line)
  local state = streams[id]
  if state == nil then
    state = {}
    streams[id] = state
  end
  return (run(transform_stream_chunk, line, state))
end

-- Every line of one network read in one call: lines joined by "\0" in, results joined by "\0"
-- out ("\2" for a skipped line), so the host crosses into Lua once per read, not per line.
function __chunks(id, packed)
  local fn, state = transform_stream_chunk, streams[id]
  if state == nil then
    state = {}
    streams[id] = state
  end
  charge(#packed)
  local out, pos = {}, 1
  while true do
    local at = find(packed, "\0", pos, true)
    local result = run(fn, sub(packed, pos, (at or #packed + 1) - 1), state)
    if result == FAILED then return FAILED end
    if result == nil then
      result = "\2"
    elseif type(result) ~= "string" then
      last_error = "transform_stream_chunk returned a " .. type(result) .. ", not a string"
      return FAILED
    end
    out[#out + 1] = result
    if not at then break end
    pos = at + 1
  end
  return concat(out, "\0")
end

-- Forget a stream's state.
function __end_stream(id) streams[id] = nil end

-- The message of the last failed call.
function __last_error() return last_error end

-- What the script defines, as JSON text.
function __exports()
  local out = json.object()
  for _, k in ipairs({ "endpoint", "headers", "transform_request", "transform_response",
    "transform_stream_chunk" }) do
    out[k] = type(rawget(G, k)) == "function"
  end
  local script_name, format = rawget(G, "name"), rawget(G, "stream_format")
  out.name = type(script_name) == "string" and script_name or json.null
  out.stream_format = type(format) == "string" and format or json.null
  return json.encode(out)
end
