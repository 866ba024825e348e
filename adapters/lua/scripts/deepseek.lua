-- DeepSeek (https://api.deepseek.com): OpenAI-compatible, with `reasoning_content` deltas from
-- deepseek-reasoner and cache hits reported as `prompt_cache_hit_tokens`.
name = "deepseek"

function endpoint(config, stream)
  return "/chat/completions"
end

function headers(config)
  return { authorization = "Bearer " .. (config.api_key or "") }
end

-- DeepSeek refuses `reasoning_content` in input messages; the kernel never sends it, but a
-- user-edited request path might.
function transform_request(body)
  if not string.find(body, '"reasoning_content"', 1, true) then return body end
  local request = json.decode(body)
  for _, message in ipairs(request.messages) do message.reasoning_content = nil end
  return json.encode(request)
end

local function map_usage(doc)
  local usage = doc.usage
  if type(usage) ~= "table" or usage.prompt_cache_hit_tokens == nil then return false end
  usage.prompt_tokens_details = { cached_tokens = usage.prompt_cache_hit_tokens }
  return true
end

function transform_response(body)
  local doc = json.decode(body)
  if map_usage(doc) then return json.encode(doc) end
  return body
end

function transform_stream_chunk(line, state)
  -- Only the usage chunk needs rewriting; everything else is already unified.
  if not string.find(line, '"prompt_cache_hit_tokens"', 1, true) then return line end
  local chunk = json.decode(line)
  map_usage(chunk)
  return json.encode(chunk)
end
