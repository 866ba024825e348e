-- GitHub Models (https://models.github.ai/inference): an OpenAI-compatible endpoint; the key
-- is a GitHub token with the models scope, models are named like "openai/gpt-4.1".
name = "github"

function endpoint(config, stream)
  return "/chat/completions"
end

function headers(config)
  return {
    authorization = "Bearer " .. (config.api_key or ""),
    accept = "application/json",
    ["x-github-api-version"] = "2022-11-28",
  }
end

function transform_request(body)
  return body
end

function transform_response(body)
  return body
end

function transform_stream_chunk(line, state)
  return line
end
