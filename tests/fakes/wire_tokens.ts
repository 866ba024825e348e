/**
 * Token counts of a request as the fake LLM server received it, with gpt-tokenizer (o200k_base):
 * the figures of issues 14 and 16 and the tests that hold their bounds count the same way.
 */
import type { FakeRequestBody } from "../fixtures/fake_llm.ts";

/** Tokens of a chat-completions request: each message's text and 3 of framing, the tools. */
export async function wirePromptTokens(
  body: FakeRequestBody,
): Promise<{ total: number; tools: number }> {
  // Loaded here, not at import: the other benchmarks need not pay for its tables.
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const ordinary = { disallowedSpecial: new Set<string>() };
  const messages = body.messages.reduce((sum, m) => {
    const text = typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "");
    const calls = m.tool_calls ? JSON.stringify(m.tool_calls) : "";
    return sum + 3 + countTokens(text, ordinary) + (calls ? countTokens(calls, ordinary) : 0);
  }, 3);
  const tools = body.tools ? countTokens(JSON.stringify(body.tools), ordinary) : 0;
  return { total: messages + tools, tools };
}
