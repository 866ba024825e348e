-- Google Gemini API (https://generativelanguage.googleapis.com/v1beta): generateContent and
-- streamGenerateContent?alt=sse, the system prompt as systemInstruction, tool calls as
-- functionCall / functionResponse parts, thoughts as parts marked `thought = true`.
name = "gemini"

-- Ask for thought summaries (streamed as reasoning) from thinking models.
include_thoughts = true

local function model_path(config)
  return (string.gsub(config.model or "", "^models/", ""))
end

function endpoint(config, stream)
  if stream then return "/models/" .. model_path(config) .. ":streamGenerateContent?alt=sse" end
  return "/models/" .. model_path(config) .. ":generateContent"
end

function headers(config)
  return { ["x-goog-api-key"] = config.api_key or "" }
end

-- Gemini's schema dialect refuses some JSON Schema keywords.
local DROP = { ["$schema"] = true, additionalProperties = true, ["$id"] = true }
local function clean(schema)
  if type(schema) ~= "table" or schema == json.null then return schema end
  local out = setmetatable({}, getmetatable(schema))
  for k, v in pairs(schema) do
    if not DROP[k] then out[k] = clean(v) end
  end
  return out
end

-- A functionCall's thoughtSignature must come back with it: it rides in the tool-call id.
local SEP = "~sig~"
local function split_id(id)
  local at = string.find(id or "", SEP, 1, true)
  if not at then return id, nil end
  return string.sub(id, 1, at - 1), string.sub(id, at + #SEP)
end

local function args_of(text)
  if type(text) ~= "string" or text == "" then return json.object() end
  local ok, value = pcall(json.decode, text)
  if ok and type(value) == "table" then return json.object(value) end
  return json.object()
end

function transform_request(body)
  local req = json.decode(body)
  local system, contents, names = {}, json.array(), {}
  local function push(role, part)
    local last = contents[#contents]
    if last and last.role == role then
      last.parts[#last.parts + 1] = part
    else
      contents[#contents + 1] = { role = role, parts = json.array({ part }) }
    end
  end
  for _, m in ipairs(req.messages) do
    if m.role == "system" then
      system[#system + 1] = { text = m.content }
    elseif m.role == "user" then
      for _, part in ipairs(openai.content_parts(m.content)) do
        if part.data then
          push("user", { inlineData = { mimeType = part.mime, data = part.data } })
        elseif part.url then
          push("user", { fileData = { fileUri = part.url } })
        else
          push("user", { text = part.text })
        end
      end
    elseif m.role == "assistant" then
      if type(m.content) == "string" and m.content ~= "" then push("model", { text = m.content }) end
      for _, call in ipairs(m.tool_calls or {}) do
        names[call.id] = call["function"].name
        local _, signature = split_id(call.id)
        local part = { functionCall = { name = call["function"].name,
          args = args_of(call["function"].arguments) } }
        if signature then part.thoughtSignature = signature end
        push("model", part)
      end
    elseif m.role == "tool" then
      -- The unified tool message carries only the call id; Gemini wants the function name.
      local fname = m.name or names[m.tool_call_id] or "tool"
      push("user", { functionResponse = { name = fname, response = { content = m.content } } })
    end
  end
  local out = { contents = contents, generationConfig = json.object() }
  if #system > 0 then out.systemInstruction = { parts = system } end
  if req.temperature then out.generationConfig.temperature = req.temperature end
  if req.max_tokens then out.generationConfig.maxOutputTokens = req.max_tokens end
  if include_thoughts then out.generationConfig.thinkingConfig = { includeThoughts = true } end
  if req.tools then
    local declarations = json.array()
    for _, tool in ipairs(req.tools) do
      local fn = tool["function"]
      declarations[#declarations + 1] = { name = fn.name, description = fn.description,
        parameters = clean(fn.parameters) }
    end
    out.tools = { { functionDeclarations = declarations } }
  end
  return json.encode(out)
end

local FINISH = { STOP = "stop", MAX_TOKENS = "length", SAFETY = "content_filter",
  RECITATION = "content_filter", BLOCKLIST = "content_filter",
  PROHIBITED_CONTENT = "content_filter", SPII = "content_filter", IMAGE_SAFETY = "content_filter" }
-- Reasons that mean the generation failed rather than ended: an error (retried), not an
-- empty answer.
local FAILED = { MALFORMED_FUNCTION_CALL = true, UNEXPECTED_TOOL_CALL = true,
  TOO_MANY_TOOL_CALLS = true }

-- The unified error of a candidate that failed, or nil.
local function failure(doc)
  local candidate = doc.candidates and doc.candidates[1]
  local reason = candidate and candidate.finishReason
  if not FAILED[reason] then return nil end
  local detail = type(candidate.finishMessage) == "string" and (": " .. candidate.finishMessage) or ""
  return json.encode({ error = { message = "Gemini stopped with " .. reason .. detail } })
end

local function usage_of(meta)
  if type(meta) ~= "table" then return nil end
  return { prompt_tokens = meta.promptTokenCount or 0,
    completion_tokens = (meta.candidatesTokenCount or 0) + (meta.thoughtsTokenCount or 0),
    prompt_tokens_details = { cached_tokens = meta.cachedContentTokenCount or 0 } }
end

-- One GenerateContentResponse -> (text, reasoning, calls, finish); `state.calls` numbers calls.
local function read(doc, state)
  local candidate = doc.candidates and doc.candidates[1]
  local text, thinking, calls = {}, {}, json.array()
  if candidate and candidate.content and candidate.content ~= json.null then
    for _, part in ipairs(candidate.content.parts or {}) do
      if part.functionCall then
        local index = state.calls
        state.calls = index + 1
        local id = "call_" .. index
        if part.thoughtSignature then id = id .. SEP .. part.thoughtSignature end
        calls[#calls + 1] = { index = index, id = id, type = "function",
          ["function"] = { name = part.functionCall.name,
            arguments = json.encode(json.object(part.functionCall.args or {})) } }
      elseif part.thought == true and part.text then
        thinking[#thinking + 1] = part.text
      elseif part.text then
        text[#text + 1] = part.text
      end
    end
  end
  local finish = nil
  local reason = candidate and candidate.finishReason
  if type(reason) == "string" then
    finish = FINISH[reason] or "stop"
    if finish == "stop" and (state.calls > 0) then finish = "tool_calls" end
  elseif doc.promptFeedback and doc.promptFeedback.blockReason then
    finish = "content_filter"
  end
  return table.concat(text), table.concat(thinking), calls, finish
end

-- One GenerateContentResponse, or the JSON array of them that streamGenerateContent sends
-- without alt=sse (a proxy that drops the query string): the array is folded in order.
function transform_response(body)
  local doc = json.decode(body)
  local docs = doc
  if getmetatable(doc) ~= getmetatable(json.array()) then docs = { doc } end
  local state, text, thinking, calls = { calls = 0 }, {}, {}, json.array()
  local model, usage, finish
  for _, one in ipairs(docs) do
    if one.error then return json.encode({ error = one.error }) end
    local failed = failure(one)
    if failed then return failed end
    local t, r, c, f = read(one, state)
    text[#text + 1], thinking[#thinking + 1] = t, r
    for _, call in ipairs(c) do calls[#calls + 1] = call end
    model = one.modelVersion or model
    usage = usage_of(one.usageMetadata) or usage
    finish = f or finish
  end
  local message, reasoning = { role = "assistant", content = table.concat(text) }, table.concat(thinking)
  if reasoning ~= "" then message.reasoning_content = reasoning end
  if #calls > 0 then message.tool_calls = calls end
  return json.encode({ model = model,
    choices = { { index = 0, message = message, finish_reason = finish or "stop" } },
    usage = usage })
end

function transform_stream_chunk(line, state)
  local doc = json.decode(line)
  if doc.error then return json.encode({ error = doc.error }) end
  local failed = failure(doc)
  if failed then return failed end
  state.calls = state.calls or 0
  local text, thinking, calls, finish = read(doc, state)
  local delta = json.object()
  if text ~= "" then delta.content = text end
  if thinking ~= "" then delta.reasoning_content = thinking end
  if #calls > 0 then delta.tool_calls = calls end
  local chunk = { model = doc.modelVersion, choices = { { index = 0, delta = delta } } }
  if finish then
    chunk.choices[1].finish_reason = finish
    chunk.usage = usage_of(doc.usageMetadata)
  end
  return json.encode(chunk)
end
