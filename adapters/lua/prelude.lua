-- Runs once in every adapter VM before the adapter script: mounts `json`, wraps the host
-- functions, removes what a script must not reach, and defines the entry points the
-- TypeScript runtime calls. Globals starting with "__" belong to the runtime.
local json_src, host_log, host_http, limit, time_limit =
  __json_src, __host_log, __host_http, __instruction_limit, __time_limit_s
local raw_load, raw_pcall, raw_xpcall, error, type, tostring, setmetatable, G =
  load, pcall, xpcall, error, type, tostring, setmetatable, _G
local sethook, gethook, clock = debug.sethook, debug.gethook, os.clock
local find, sub = string.find, string.sub
__json_src, __host_log, __host_http, __instruction_limit, __time_limit_s = nil, nil, nil, nil, nil

json = raw_load(json_src, "=json.lua")()

-- A unique value raised when a call runs past its budget; pcall inside a script cannot keep it.
local LIMIT = setmetatable({}, { __tostring = function() return "instruction or time limit exceeded" end })

local function guard_pcall(ok, ...)
  if not ok and (...) == LIMIT then error(LIMIT, 0) end
  return ok, ...
end
pcall = function(f, ...) return guard_pcall(raw_pcall(f, ...)) end
xpcall = function(f, handler, ...)
  return guard_pcall(raw_xpcall(f, function(e)
    if e == LIMIT then return LIMIT end
    return handler(e)
  end, ...))
end

-- log(level?, message): level is "debug", "info", "warn" or "error" (default "info").
function log(a, b)
  if b == nil then host_log("info", tostring(a)) else host_log(tostring(a), tostring(b)) end
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

for _, name in ipairs({ "os", "io", "require", "load", "dofile", "loadfile", "package", "debug",
  "collectgarbage", "coroutine", "loadstring" }) do
  G[name] = nil
end

local last_error = nil
local streams = {}

-- One budget at a time: calls are synchronous, and an async call that waits on the host
-- only loses the budget it had used so far when another call runs meanwhile. The count hook
-- is set once per Lua thread (new threads inherit it) and only counts while a call is armed.
local count, started, budget, armed = 0, nil, 0, false
local function hook()
  if not armed then return end
  count = count + 1000
  if started == nil then started = clock() end -- first check: short calls never read the clock
  if count > limit or clock() - started > budget then error(LIMIT, 0) end
end

local function handler(e)
  if e == LIMIT or type(e) == "table" then return e end
  return tostring(e)
end

local function finish(ok, result)
  if ok then return result end
  if result == LIMIT then
    last_error = "limit: " .. tostring(LIMIT)
  elseif type(result) == "table" then
    last_error = tostring(result.message or result[1] or "error object")
  else
    last_error = tostring(result)
  end
  return "\1error"
end

local function run_limited(budget_s, fn, a, b)
  if gethook() ~= hook then sethook(hook, "", 1000) end
  count, started, budget, armed = 0, nil, budget_s, true
  local ok, result = raw_xpcall(fn, handler, a, b)
  armed = false
  return finish(ok, result)
end

local function defined(name)
  local fn = G[name]
  if type(fn) ~= "function" then
    last_error = "function " .. name .. " is not defined"
    return nil
  end
  return fn
end

-- Load the adapter script text under the budget; returns "ok" or "\1error".
function __load(source, chunkname)
  local chunk, problem = raw_load(source, "@" .. chunkname, "t", G)
  if not chunk then
    last_error = problem
    return "\1error"
  end
  local result = run_limited(time_limit, chunk)
  if result == "\1error" then return result end
  return "ok"
end

-- Call global `name` with one string argument under the budget (transform_*).
function __invoke(name, arg)
  local fn = defined(name)
  if not fn then return "\1error" end
  return (run_limited(time_limit, fn, arg))
end

-- transform_request, where http_get/http_post may wait on the host: a longer time budget.
function __invoke_async(name, arg)
  local fn = defined(name)
  if not fn then return "\1error" end
  return (run_limited(time_limit + 60, fn, arg))
end

-- endpoint(config, stream) with the config as JSON text.
function __endpoint(config_json, stream)
  local fn = defined("endpoint")
  if not fn then return "\1error" end
  return (run_limited(time_limit, function()
    return fn(json.decode(config_json), stream)
  end))
end

-- headers(config) with the config as JSON text; the header table comes back as JSON text.
function __headers(config_json)
  local fn = defined("headers")
  if not fn then return "{}" end
  return (run_limited(time_limit + 60, function()
    local headers = fn(json.decode(config_json))
    if headers == nil then return "{}" end
    if type(headers) ~= "table" then error("headers() must return a table", 0) end
    return json.encode(json.object(headers))
  end))
end

-- transform_stream_chunk(line, state) with a state table kept per stream id.
function __chunk(id, line)
  local state = streams[id]
  if state == nil then
    state = {}
    streams[id] = state
  end
  return (run_limited(time_limit, transform_stream_chunk, line, state))
end

-- Every line of one network read in one call: lines joined by "\0" in, results joined by "\0"
-- out ("\2" for a skipped line), so the host crosses into Lua once per read, not per line.
function __chunks(id, packed)
  local state = streams[id]
  if state == nil then
    state = {}
    streams[id] = state
  end
  local out, at, size = {}, 1, #packed
  while at <= size + 1 do
    -- a plain find, not a pattern: gmatch("(.-)\0") costs more than the calls it saves
    local stop = find(packed, "\0", at, true) or size + 1
    local line = sub(packed, at, stop - 1)
    at = stop + 1
    local result = run_limited(time_limit, transform_stream_chunk, line, state)
    if result == "\1error" then return result end
    if result == nil then
      result = "\2"
    elseif type(result) ~= "string" then
      last_error = "transform_stream_chunk returned a " .. type(result) .. ", not a string"
      return "\1error"
    end
    out[#out + 1] = result
  end
  return table.concat(out, "\0")
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
    out[k] = type(G[k]) == "function"
  end
  out.name = type(name) == "string" and name or json.null
  out.stream_format = type(stream_format) == "string" and stream_format or json.null
  return json.encode(out)
end
