-- GitHub Models (https://models.github.ai/inference): an OpenAI-compatible endpoint; the key
-- is a GitHub token with the models scope, models are named like "openai/gpt-4.1".
name = "github"

function headers(config)
  local h = openai.headers(config)
  h.accept = "application/json"
  h["x-github-api-version"] = "2022-11-28"
  return h
end
