/**
 * The OpenAI-compatible endpoint refuses a prompt that fits no LLM source as OpenAI does
 * (400 `context_length_exceeded`), streamed or not, and the official SDK reads it so.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { TOKEN } from "./_deps.ts";
import { serveAgent } from "./_agent_server.ts";

Deno.test("openai SDK: a 3 MB prompt is refused with context_length_exceeded and nothing is sent", async () => {
  await using s = serveAgent(); // one source, a 32,000-token window
  const openai = new OpenAI({ apiKey: TOKEN, baseURL: `${s.base}/v1`, maxRetries: 0 });
  const huge = "lorem ipsum ".repeat(250_000); // 3 MB, about 500,000 tokens by the estimate
  for (const stream of [false, true]) {
    await assert.rejects(
      openai.chat.completions.create({
        model: "homeagent",
        stream,
        messages: [{ role: "user", content: huge }],
      }),
      (e: unknown) => {
        assert.ok(e instanceof OpenAI.BadRequestError, `stream ${stream}: ${e}`);
        assert.equal(e.status, 400);
        assert.equal(e.type, "invalid_request_error");
        assert.equal(e.code, "context_length_exceeded");
        assert.match(e.message, /about 500,000 tokens.*\(32,000 tokens\)/);
        return true;
      },
    );
  }
  assert.equal(s.llm.requests.length, 0, "nothing reached the LLM");
});
