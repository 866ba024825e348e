-- OpenAI chat completions. The unified format is OpenAI's own chat-completions JSON, so this
-- adapter only names the endpoint and the auth header and passes bodies and chunks through.
name = "openai"

function endpoint(config, stream)
  return "/chat/completions"
end

function headers(config)
  if config.api_key == nil or config.api_key == "" then return {} end
  return { authorization = "Bearer " .. config.api_key }
end

function transform_request(body)
  return body
end

function transform_response(body)
  return body
end

-- `line` is the data of one SSE event; the unified chunk is the same JSON (or "[DONE]").
function transform_stream_chunk(line, state)
  return line
end
