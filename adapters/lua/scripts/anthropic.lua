-- Anthropic Messages API (https://api.anthropic.com): the system prompt goes in `system`,
-- tool calls are tool_use / tool_result content blocks, and the stream is typed SSE events
-- (message_start, content_block_start/delta/stop, message_delta, message_stop, ping, error).
name = "anthropic"

-- Extended thinking: a token budget above 0 asks for thinking blocks (streamed as reasoning).
thinking_budget = 0
-- Anthropic requires max_tokens; used when the kernel sets none.
default_max_tokens = 8192

function endpoint(config, stream)
  return "/v1/messages"
end

function headers(config)
  return { ["x-api-key"] = config.api_key or "", ["anthropic-version"] = "2023-06-01" }
end

local STOP = { end_turn = "stop", stop_sequence = "stop", tool_use = "tool_calls",
  max_tokens = "length", model_context_window_exceeded = "length", refusal = "content_filter",
  pause_turn = "stop" }

local function arguments_object(text)
  if type(text) ~= "string" or text == "" then return json.object() end
  local ok, value = pcall(json.decode, text)
  if ok and type(value) == "table" then return json.object(value) end
  return json.object({ value = text })
end

function transform_request(body)
  local req = json.decode(body)
  local system, messages = {}, json.array()
  local function push(role, block)
    local last = messages[#messages]
    if last and last.role == role then
      last.content[#last.content + 1] = block
    else
      messages[#messages + 1] = { role = role, content = json.array({ block }) }
    end
  end
  for _, m in ipairs(req.messages) do
    if m.role == "system" then
      system[#system + 1] = m.content
    elseif m.role == "user" then
      for _, part in ipairs(openai.content_parts(m.content)) do
        if part.data then
          push("user", { type = "image", source = { type = "base64", media_type = part.mime,
            data = part.data } })
        elseif part.url then
          push("user", { type = "image", source = { type = "url", url = part.url } })
        else
          push("user", { type = "text", text = part.text })
        end
      end
    elseif m.role == "assistant" then
      if type(m.content) == "string" and m.content ~= "" then
        push("assistant", { type = "text", text = m.content })
      end
      for _, call in ipairs(m.tool_calls or {}) do
        local fn = call["function"]
        push("assistant", { type = "tool_use", id = call.id, name = fn.name,
          input = arguments_object(fn.arguments) })
      end
    elseif m.role == "tool" then
      push("user", { type = "tool_result", tool_use_id = m.tool_call_id, content = m.content })
    end
  end
  local out = { model = req.model, messages = messages, stream = req.stream == true,
    max_tokens = req.max_tokens or default_max_tokens }
  if #system > 0 then out.system = table.concat(system, "\n\n") end
  if req.temperature then out.temperature = req.temperature end
  if thinking_budget > 0 then
    out.thinking = { type = "enabled", budget_tokens = thinking_budget }
    out.temperature = nil
  end
  if req.tools then
    out.tools = json.array()
    for _, tool in ipairs(req.tools) do
      local fn = tool["function"]
      out.tools[#out.tools + 1] = { name = fn.name, description = fn.description,
        input_schema = fn.parameters }
    end
  end
  return json.encode(out)
end

local function usage_of(input, output)
  local cached = input.cache_read_input_tokens or 0
  local created = input.cache_creation_input_tokens or 0
  return { prompt_tokens = (input.input_tokens or 0) + cached + created,
    completion_tokens = output or 0,
    prompt_tokens_details = { cached_tokens = cached } }
end

function transform_response(body)
  local msg = json.decode(body)
  if msg.type == "error" then return json.encode({ error = msg.error }) end
  local text, thinking, calls = {}, {}, json.array()
  for _, block in ipairs(msg.content or {}) do
    if block.type == "text" then
      text[#text + 1] = block.text
    elseif block.type == "thinking" then
      thinking[#thinking + 1] = block.thinking
    elseif block.type == "tool_use" then
      calls[#calls + 1] = { id = block.id, type = "function",
        ["function"] = { name = block.name, arguments = json.encode(json.object(block.input)) } }
    end
  end
  local message = { role = "assistant", content = table.concat(text) }
  if #thinking > 0 then message.reasoning_content = table.concat(thinking) end
  if #calls > 0 then message.tool_calls = calls end
  local usage = msg.usage or {}
  return json.encode({ model = msg.model,
    choices = { { index = 0, message = message, finish_reason = STOP[msg.stop_reason] or "stop" } },
    usage = usage_of(usage, usage.output_tokens) })
end

local function delta_chunk(delta)
  return json.encode({ choices = { { index = 0, delta = delta } } })
end

-- Text and thinking deltas are most of a stream: their JSON string is reused as is.
local TEXT = '^{"type":"content_block_delta","index":%d+,"delta":{"type":"text_delta","text":(".*")}}$'
local THINK = '^{"type":"content_block_delta","index":%d+,"delta":{"type":"thinking_delta","thinking":(".*")}}$'

function transform_stream_chunk(line, state)
  local text = string.match(line, TEXT)
  if text then return '{"choices":[{"index":0,"delta":{"content":' .. text .. '}}]}' end
  local thought = string.match(line, THINK)
  if thought then return '{"choices":[{"index":0,"delta":{"reasoning_content":' .. thought .. '}}]}' end
  local event = json.decode(line)
  local kind = event.type
  if kind == "message_start" then
    state.model = event.message.model
    state.input = event.message.usage or {}
    state.tools = {}
    state.count = 0
    return nil
  elseif kind == "content_block_start" then
    local block = event.content_block
    if block.type ~= "tool_use" then return nil end
    local index = state.count
    state.count = index + 1
    state.tools[event.index] = index
    return delta_chunk({ tool_calls = { { index = index, id = block.id, type = "function",
      ["function"] = { name = block.name, arguments = "" } } } })
  elseif kind == "content_block_delta" then
    local delta = event.delta
    if delta.type == "text_delta" then return delta_chunk({ content = delta.text }) end
    if delta.type == "thinking_delta" then return delta_chunk({ reasoning_content = delta.thinking }) end
    if delta.type == "input_json_delta" then
      return delta_chunk({ tool_calls = { { index = state.tools[event.index] or 0,
        ["function"] = { arguments = delta.partial_json } } } })
    end
    return nil -- signature_delta, citations
  elseif kind == "message_delta" then
    local usage = event.usage or {}
    -- Newer API versions repeat the input counts here; older ones only in message_start.
    local input = usage.input_tokens and usage or state.input or {}
    return json.encode({ model = state.model, choices = { { index = 0, delta = json.object(),
      finish_reason = STOP[event.delta.stop_reason] or "stop" } },
      usage = usage_of(input, usage.output_tokens) })
  elseif kind == "message_stop" then
    return "[DONE]"
  elseif kind == "error" then
    return json.encode({ error = event.error })
  end
  return nil -- ping, content_block_stop
end
