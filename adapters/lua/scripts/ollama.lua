-- Ollama (/api/chat, http://127.0.0.1:11434): NDJSON streaming, tool-call arguments as
-- objects, reasoning as `thinking`. The native TypeScript client is the default for
-- adapter "ollama"; this script serves `lua:ollama` and is a starting point for forks. Headers
-- are the prelude's: Bearer auth when the source has a key (a proxy in front of Ollama).
name = "ollama"
stream_format = "ndjson"

-- Ask thinking models to think (sent as `think`); nil leaves the model's default.
think = nil

function endpoint(config, stream)
  return "/api/chat"
end

function transform_request(body)
  local req = json.decode(body)
  local messages, names = json.array(), {}
  for _, m in ipairs(req.messages) do
    local out = { role = m.role, content = m.content ~= json.null and m.content or "" }
    if m.role == "user" and type(m.content) == "table" then
      local text, images = {}, json.array()
      for _, part in ipairs(openai.content_parts(m.content)) do
        if part.data then images[#images + 1] = part.data
        elseif part.text then text[#text + 1] = part.text end
      end
      out.content = table.concat(text, "\n")
      if #images > 0 then out.images = images end
    end
    if m.role == "tool" then out.tool_name = m.name or names[m.tool_call_id] end
    if m.tool_calls then
      for _, call in ipairs(m.tool_calls) do names[call.id] = call["function"].name end
      out.tool_calls = json.array()
      for _, call in ipairs(m.tool_calls) do
        local ok, args = pcall(json.decode, call["function"].arguments or "{}")
        if not ok or type(args) ~= "table" then args = json.object() end
        out.tool_calls[#out.tool_calls + 1] = { ["function"] = { name = call["function"].name,
          arguments = json.object(args) } }
      end
    end
    messages[#messages + 1] = out
  end
  local options = json.object()
  if req.temperature then options.temperature = req.temperature end
  if req.max_tokens then options.num_predict = req.max_tokens end
  local out = { model = req.model, messages = messages, stream = req.stream == true,
    options = options }
  if think ~= nil then out.think = think end
  if req.tools then out.tools = req.tools end
  return json.encode(out)
end

local function message_delta(message, state)
  local delta = json.object()
  if type(message) ~= "table" then return delta end
  if type(message.content) == "string" and message.content ~= "" then delta.content = message.content end
  if type(message.thinking) == "string" and message.thinking ~= "" then
    delta.reasoning_content = message.thinking
  end
  if type(message.tool_calls) == "table" then
    delta.tool_calls = json.array()
    for _, call in ipairs(message.tool_calls) do
      local index = state.calls
      state.calls = index + 1
      local args = call["function"].arguments
      if type(args) == "table" then args = json.encode(json.object(args)) end
      delta.tool_calls[#delta.tool_calls + 1] = { index = index, id = call.id or ("call_" .. index),
        type = "function", ["function"] = { name = call["function"].name, arguments = args or "{}" } }
    end
  end
  return delta
end

local function finish_of(line, state)
  local reason = line.done_reason
  if reason == "length" then return "length" end
  if state.calls > 0 then return "tool_calls" end
  return "stop"
end

local function usage_of(line)
  return { prompt_tokens = line.prompt_eval_count or 0, completion_tokens = line.eval_count or 0 }
end

function transform_response(body)
  local line = json.decode(body)
  if type(line.error) == "string" then return json.encode({ error = { message = line.error } }) end
  local state = { calls = 0 }
  local message = message_delta(line.message, state)
  message.role = "assistant"
  message.content = message.content or ""
  return json.encode({ model = line.model, choices = { { index = 0, message = message,
    finish_reason = finish_of(line, state) } }, usage = usage_of(line) })
end

function transform_stream_chunk(text, state)
  local line = json.decode(text)
  if type(line.error) == "string" then return json.encode({ error = { message = line.error } }) end
  state.calls = state.calls or 0
  local chunk = { model = line.model, choices = { { index = 0, delta = message_delta(line.message, state) } } }
  if line.done == true then
    chunk.choices[1].finish_reason = finish_of(line, state)
    chunk.usage = usage_of(line)
  end
  return json.encode(chunk)
end
