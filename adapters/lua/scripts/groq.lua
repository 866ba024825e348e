-- Groq (https://api.groq.com/openai/v1): OpenAI-compatible. Reasoning models stream a
-- `reasoning` field; usage may arrive as `x_groq.usage` on the last chunk.
name = "groq"

local function usage_from_x_groq(chunk)
  local extra = chunk.x_groq
  if type(extra) == "table" and type(extra.usage) == "table" and chunk.usage == nil then
    chunk.usage = extra.usage
  end
  chunk.x_groq = nil
end

function transform_stream_chunk(line, state)
  return openai.rewrite(line, '"x_groq"', usage_from_x_groq)
end
