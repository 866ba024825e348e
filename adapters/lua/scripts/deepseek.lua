-- DeepSeek (https://api.deepseek.com): OpenAI-compatible, with `reasoning_content` deltas from
-- deepseek-reasoner and cache hits reported as `prompt_cache_hit_tokens`.
name = "deepseek"

-- DeepSeek refuses `reasoning_content` in input messages; the kernel never sends it, but a
-- user-edited request path might.
local function drop_reasoning(request)
  for _, message in ipairs(request.messages) do message.reasoning_content = nil end
end

function transform_request(body)
  return openai.rewrite(body, '"reasoning_content"', drop_reasoning)
end

local function map_usage(doc)
  local usage = doc.usage
  if type(usage) ~= "table" or usage.prompt_cache_hit_tokens == nil then return end
  usage.prompt_tokens_details = { cached_tokens = usage.prompt_cache_hit_tokens }
end

-- Only a body or chunk with usage needs rewriting; everything else is already unified.
function transform_response(body)
  return openai.rewrite(body, '"prompt_cache_hit_tokens"', map_usage)
end

function transform_stream_chunk(line, state)
  return openai.rewrite(line, '"prompt_cache_hit_tokens"', map_usage)
end
