-- Mistral (https://api.mistral.ai/v1): OpenAI-like chat completions with three differences —
-- no `stream_options`, tool-call ids of exactly nine letters or digits, and Magistral's
-- reasoning sent as typed content parts ({type = "thinking"} / {type = "text"}).
name = "mistral"

-- Ids from other providers ("call_abc…", "toolu_…") become nine alphanumerics, the same
-- way on both sides of a call/result pair.
local function nine(id)
  if type(id) ~= "string" then return id end
  local clean = string.gsub(id, "[^%w]", "")
  if #clean == 9 then return clean end
  if #clean > 9 then return string.sub(clean, -9) end
  return clean .. string.rep("0", 9 - #clean)
end

function transform_request(body)
  local request = json.decode(body)
  request.stream_options = nil
  for _, message in ipairs(request.messages) do
    if message.tool_call_id then message.tool_call_id = nine(message.tool_call_id) end
    if type(message.tool_calls) == "table" then
      for _, call in ipairs(message.tool_calls) do call.id = nine(call.id) end
    end
  end
  return json.encode(request)
end

-- Typed content parts -> (text, reasoning).
local function split_parts(content)
  if type(content) ~= "table" then return content, nil end
  local text, thinking = {}, {}
  for _, part in ipairs(content) do
    if part.type == "text" then
      text[#text + 1] = part.text
    elseif part.type == "thinking" then
      for _, inner in ipairs(part.thinking or {}) do
        if inner.type == "text" then thinking[#thinking + 1] = inner.text end
      end
    end
  end
  local reasoning = #thinking > 0 and table.concat(thinking) or nil
  return table.concat(text), reasoning
end

local function unify(holder)
  if type(holder) ~= "table" then return end
  local text, reasoning = split_parts(holder.content)
  holder.content = text
  if reasoning then holder.reasoning_content = reasoning end
end

-- finish_reason values beyond OpenAI's: "model_length" (the context length ended the
-- answer) is "length"; "error" (generation failed) fails the call instead of passing a cut
-- answer off as complete.
local FAILED = json.encode({ error = { message = 'Mistral ended the answer with finish_reason "error"' } })
local UNUSUAL_FINISH = '"finish_reason"%s*:%s*"[me]'

-- Unify each choice's message or delta in place; the error text when a choice failed.
local function unify_choices(doc, field)
  for _, choice in ipairs(doc.choices or {}) do
    if choice.finish_reason == "error" then return FAILED end
    if choice.finish_reason == "model_length" then choice.finish_reason = "length" end
    unify(choice[field])
  end
end

-- Only a body with thinking parts, a chunk whose content is a list of parts, or one that ends
-- unusually needs rewriting; JSON may space it out.
local function response_needs(body)
  return string.find(body, '"thinking"', 1, true) or string.find(body, UNUSUAL_FINISH)
end

local function chunk_needs(line)
  return string.find(line, '"content"%s*:%s*%[') or string.find(line, UNUSUAL_FINISH)
end

function transform_response(body)
  return openai.rewrite(body, response_needs, function(doc) return unify_choices(doc, "message") end)
end

function transform_stream_chunk(line, state)
  return openai.rewrite(line, chunk_needs, function(doc) return unify_choices(doc, "delta") end)
end
