-- OpenAI chat completions. The unified format is OpenAI's own, so the prelude's defaults are
-- this whole adapter: POST /chat/completions with Bearer auth, bodies and chunks passed through.
-- To change one thing, define only that global; the defaults stay callable as openai.<name>:
--
--   function headers(config)
--     local h = openai.headers(config)
--     h["x-proxy-token"] = "…"
--     return h
--   end
name = "openai"
