-- HomeAgent Lua plugin prelude: runs in the plugin's worker after core's budget.lua and before
-- main.lua. It keeps the raw functions it needs in locals, builds the `sdk` table over the host's
-- requests, and removes what a plugin must not reach (files, processes, loading code). Every
-- entry point below runs as one call under the VM's budget, which the host holds.
local raw, host = __budget_raw, __host
__budget_raw, __host = nil, nil
local raw_pcall, raw_load, raw_error = raw.pcall, load, error
local type, tostring, select, concat, sub = type, tostring, select, table.concat, string.sub

local handlers = {}
local plugin = nil

-- Wait for a host request; a refusal becomes a Lua error at the caller's line.
local function await(p)
  local result = p:await()
  if type(result) == "table" and result.__error then raw_error(result.__error, 3) end
  return result
end

local function request(method, params) return await(host.request(method, params)) end

local function register(fn)
  if type(fn) ~= "function" then raw_error("handler must be a function", 3) end
  handlers[#handlers + 1] = fn
  return #handlers
end

local LOG_MAX = 8192
local function log(level, message)
  message = tostring(message)
  if #message > LOG_MAX then message = sub(message, 1, LOG_MAX) .. "..." end
  host.log(tostring(level), message)
end

sdk = {
  register_tool = function(def, fn)
    request("register_tool", { def = def, id = register(fn) })
  end,
  register_stage = function(stage, fn, scope)
    request("register_stage", { stage = stage, id = register(fn), scope = scope })
  end,
  register_output_channel = function(name, caps, description, fn, help)
    request("register_output_channel", {
      name = name, caps = caps, description = description, id = register(fn), help = help,
    })
  end,
  get_setting = function(key) return request("api", { method = "settings.get", params = { key = key } }).value end,
  set_setting = function(key, value)
    request("api", { method = "settings.set", params = { key = key, value = value } })
  end,
  inject_input = function(text, opts)
    local o = opts or {}
    o.text = text
    return request("api", { method = "input.inject", params = o })
  end,
  inject_interrupt = function(text, opts)
    local o = opts or {}
    o.text = text
    return request("api", { method = "input.interrupt", params = o })
  end,
  call = function(method, params) return request("api", { method = method, params = params or {} }) end,
  memory = {
    recall = function(query, k)
      return request("api", { method = "memory.recall", params = { query = query, k = k } }).items
    end,
    commit = function(text, tags)
      return request("api", { method = "memory.commit", params = { text = text, tags = tags } })
    end,
  },
  doc = {
    query = function(query, k)
      return request("api", { method = "doc.query", params = { query = query, k = k } }).items
    end,
    commit = function(content, summary)
      return request("api", { method = "doc.commit", params = { content = content, summary = summary } })
    end,
  },
  knowledge = {
    search = function(query, k)
      return request("api", { method = "knowledge.search", params = { query = query, k = k } }).items
    end,
  },
  settings = {
    list = function() return request("api", { method = "settings.list", params = {} }).values end,
  },
  json = { encode = host.json_encode, decode = host.json_decode },
  http = {
    get = function(url, headers)
      return request("http", { method = "GET", url = url, body = "", headers = headers or {} })
    end,
    post = function(url, body, headers)
      return request("http", { method = "POST", url = url, body = body or "", headers = headers or {} })
    end,
  },
  log = log,
}

-- print(...) goes to the plugin's log.
function print(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  log("info", concat(parts, "\t"))
end

-- The entry points return (ok, value); a budget stop is read by the host, not from here.
function __load_main(source)
  local chunk, err = raw_load(source, "=main.lua", "t")
  if not chunk then return false, err end
  local ok, result = raw_pcall(chunk)
  if not ok then return false, result end
  if type(result) ~= "table" or type(result.start) ~= "function" then
    return false, "main.lua must return a table with start(sdk) and stop()"
  end
  plugin = result
  return true, nil
end

function __start() return raw_pcall(plugin.start, sdk) end

function __stop()
  if type(plugin.stop) == "function" then return raw_pcall(plugin.stop) end
  return true, nil
end

function __invoke(id, arg)
  local fn = handlers[id]
  if not fn then return false, "unknown handler" end
  return raw_pcall(fn, arg)
end

-- The sandbox: no files, processes, environment or code loading.
io, require, dofile, loadfile, load, package = nil, nil, nil, nil, nil, nil
os = { time = os.time, clock = os.clock, date = os.date, difftime = os.difftime }
