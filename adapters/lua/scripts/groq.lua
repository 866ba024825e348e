-- Groq (https://api.groq.com/openai/v1): OpenAI-compatible. Reasoning models stream a
-- `reasoning` field; usage may arrive as `x_groq.usage` on the last chunk.
name = "groq"

function endpoint(config, stream)
  return "/chat/completions"
end

function headers(config)
  return { authorization = "Bearer " .. (config.api_key or "") }
end

function transform_request(body)
  return body
end

function transform_response(body)
  return body
end

function transform_stream_chunk(line, state)
  if not string.find(line, '"x_groq"', 1, true) then return line end
  local chunk = json.decode(line)
  local extra = chunk.x_groq
  if type(extra) == "table" and type(extra.usage) == "table" and chunk.usage == nil then
    chunk.usage = extra.usage
  end
  chunk.x_groq = nil
  return json.encode(chunk)
end
