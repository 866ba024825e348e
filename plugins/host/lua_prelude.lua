-- HomeAgent Lua plugin prelude: runs before main.lua. It keeps the raw functions it needs in
-- locals, puts every call under an instruction and time budget, and removes what a plugin must
-- not reach (files, processes, loading code).
local sethook, clock, pack, unpack = debug.sethook, os.clock, table.pack, table.unpack
local raw_pcall, raw_xpcall, raw_error, raw_load = pcall, xpcall, error, load
local host = __host
local limit, time_limit = __instruction_limit, __time_limit_s
__host, __instruction_limit, __time_limit_s = nil, nil, nil

local LIMIT = "plugin exceeded its instruction or time limit"
local tripped = false
local handlers = {}
local plugin = nil

-- A script's own pcall must not swallow the budget error.
pcall = function(f, ...)
  local r = pack(raw_pcall(f, ...))
  if tripped then raw_error(LIMIT, 0) end
  return unpack(r, 1, r.n)
end
xpcall = function(f, h, ...)
  local r = pack(raw_xpcall(f, h, ...))
  if tripped then raw_error(LIMIT, 0) end
  return unpack(r, 1, r.n)
end

local function guarded(fn, ...)
  tripped = false
  local count, deadline = 0, clock() + time_limit
  sethook(function()
    count = count + 1000
    if tripped or count > limit or clock() > deadline then
      tripped = true
      raw_error(LIMIT, 0)
    end
  end, "", 1000)
  local r = pack(raw_pcall(fn, ...))
  sethook()
  tripped = false
  if not r[1] then return false, tostring(r[2]) end
  return true, r[2]
end

local function await(p)
  local result = p:await()
  if type(result) == "table" and result.__error then raw_error(result.__error, 2) end
  return result
end

local function register(fn)
  if type(fn) ~= "function" then raw_error("handler must be a function", 3) end
  handlers[#handlers + 1] = fn
  return #handlers
end

sdk = {
  register_tool = function(def, fn) host.register_tool(def, register(fn)) end,
  register_stage = function(stage, fn, scope) host.register_stage(stage, register(fn), scope) end,
  register_output_channel = function(name, caps, description, fn, help)
    host.register_output_channel(name, caps, description, register(fn), help)
  end,
  get_setting = function(key) return await(host.call("settings.get", { key = key })).value end,
  set_setting = function(key, value) await(host.call("settings.set", { key = key, value = value })) end,
  inject_input = function(text, opts)
    local o = opts or {}
    o.text = text
    return await(host.call("input.inject", o))
  end,
  inject_interrupt = function(text, opts)
    local o = opts or {}
    o.text = text
    return await(host.call("input.interrupt", o))
  end,
  call = function(method, params) return await(host.call(method, params or {})) end,
  memory = {
    recall = function(query, k) return await(host.call("memory.recall", { query = query, k = k })).items end,
    commit = function(text, tags) return await(host.call("memory.commit", { text = text, tags = tags })) end,
  },
  doc = {
    query = function(query, k) return await(host.call("doc.query", { query = query, k = k })).items end,
    commit = function(content, summary) return await(host.call("doc.commit", { content = content, summary = summary })) end,
  },
  knowledge = {
    search = function(query, k) return await(host.call("knowledge.search", { query = query, k = k })).items end,
  },
  settings = {
    list = function() return await(host.call("settings.list", {})).values end,
  },
  json = { encode = host.json_encode, decode = host.json_decode },
  http = {
    get = function(url, headers) return await(host.http("GET", url, "", headers or {})) end,
    post = function(url, body, headers) return await(host.http("POST", url, body or "", headers or {})) end,
  },
  log = function(level, message) host.log(level, tostring(message)) end,
}

function __load_main(source)
  local chunk, err = raw_load(source, "=main.lua", "t")
  if not chunk then return false, err end
  local ok, result = guarded(chunk)
  if not ok then return false, result end
  if type(result) ~= "table" or type(result.start) ~= "function" then
    return false, "main.lua must return a table with start(sdk) and stop()"
  end
  plugin = result
  return true, nil
end

function __start() return guarded(plugin.start, sdk) end

function __stop()
  if type(plugin.stop) == "function" then return guarded(plugin.stop) end
  return true, nil
end

function __invoke(id, arg)
  local fn = handlers[id]
  if not fn then return false, "unknown handler" end
  return guarded(fn, arg)
end

-- The sandbox: no files, processes, environment or code loading.
io, require, dofile, loadfile, load, package, debug, collectgarbage = nil, nil, nil, nil, nil, nil, nil, nil
os = { time = os.time, clock = os.clock, date = os.date, difftime = os.difftime }
