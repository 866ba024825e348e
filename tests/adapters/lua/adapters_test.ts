/**
 * The bundled Lua adapters against recorded traffic: what each sends (the request side, which
 * the wire conformance suite leaves out) and what it makes of the answer.
 */
import assert from "node:assert/strict";
import type { ChatRequest } from "../../../core/llm/provider.ts";
import { recording, replayStatus, startReplayServer } from "../../fixtures/fake_replay.ts";
import { luaProvider, replayCases, WEATHER } from "../_replay_cases.ts";
import { collect, doneOf, textOf } from "../_support.ts";

const greeting: ChatRequest = {
  messages: [{ role: "system", content: "Be kind." }, { role: "user", content: "Hi" }],
};

replayCases([
  {
    name: "Lua anthropic adapter streams text with usage from a recorded stream",
    adapter: "anthropic",
    model: "claude-sonnet-4-5",
    replies: ["anthropic_text.txt"],
    request: greeting,
    expect: {
      text: 'Hello! How can I "help" you today? 你好',
      finishReason: "stop",
      model: "claude-sonnet-4-5-20250929",
      usage: { promptTokens: 25, completionTokens: 15, cachedTokens: 0 },
    },
    sent: {
      path: "/v1/messages",
      headers: { "x-api-key": "key-1", "anthropic-version": "2023-06-01" },
      body: {
        system: "Be kind.",
        messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
        stream: true,
      },
    },
  },
  {
    name: "Lua anthropic adapter maps thinking, split tool input and cache hits",
    adapter: "anthropic",
    model: "claude-sonnet-4-5",
    replies: ["anthropic_thinking_tool.txt"],
    expect: {
      reasoning: "The user wants the weather in Paris. I should call get_weather.",
      text: "Let me check.",
      finishReason: "tool_calls",
      toolCalls: [{
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        name: "get_weather",
        arguments: '{"location": "Paris, France", "unit": "celsius"}',
      }],
      usage: { promptTokens: 2212, completionTokens: 89, cachedTokens: 1800 },
    },
    sent: {
      body: {
        max_tokens: 256,
        messages: [
          { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
          {
            role: "assistant",
            content: [{
              type: "tool_use",
              id: "call_1",
              name: "get_weather",
              input: { location: "Lyon" },
            }],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "call_1", content: "18C" },
              { type: "text", text: "And Paris?" },
            ],
          },
        ],
        tools: [{
          name: "get_weather",
          description: "Weather now",
          input_schema: WEATHER.tools![0]!.parameters,
        }],
      },
    },
  },
  {
    name: "Lua anthropic adapter turns an error event mid-stream into a retryable error",
    adapter: "anthropic",
    model: "claude-sonnet-4-5",
    replies: ["anthropic_error_midstream.txt"],
    expect: { error: { kind: "server", message: /Overloaded/ }, text: "Partial ans" },
  },
  {
    name: "Lua anthropic adapter answers a non-streamed call",
    adapter: "anthropic",
    model: "claude-sonnet-4-5",
    call: "chat",
    replies: ["anthropic_message.json.txt"],
    expect: {
      text: "I'll look that up.",
      toolCalls: [{
        id: "toolu_01A09q90qw90lq917835lq9",
        name: "get_weather",
        arguments: '{"location":"San Francisco, CA"}',
      }],
      finishReason: "tool_calls",
    },
  },
  {
    name: "Lua anthropic adapter maps prompt-too-long to overflow",
    adapter: "anthropic",
    model: "claude-sonnet-4-5",
    call: "chat",
    replies: [replayStatus(400, {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "prompt is too long: 210000 tokens > 200000 maximum",
      },
    })],
    expect: { error: { kind: "overflow", message: /prompt is too long/ } },
  },
  {
    name: "Lua gemini adapter streams text and usage from a recorded stream",
    adapter: "gemini",
    model: "gemini-2.5-flash",
    prefix: "/v1beta",
    replies: ["gemini_text.txt"],
    request: { ...greeting, temperature: 0.3 },
    expect: {
      text: "Hello there! How can I help you today?",
      usage: { promptTokens: 9, completionTokens: 36, cachedTokens: 4 },
    },
    sent: {
      path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
      headers: { "x-goog-api-key": "key-1" },
      body: {
        systemInstruction: { parts: [{ text: "Be kind." }] },
        generationConfig: { temperature: 0.3, thinkingConfig: { includeThoughts: true } },
      },
    },
  },
  {
    name: "Lua gemini adapter maps thoughts and a function call, keeping its signature",
    adapter: "gemini",
    model: "gemini-2.5-pro",
    prefix: "/v1beta",
    replies: ["gemini_thought_tool.txt", "gemini_text.txt"],
    expect: { finishReason: "tool_calls" },
    sent: {
      body: {
        contents: [
          { role: "user", parts: [{ text: "Weather in Paris?" }] },
          {
            role: "model",
            parts: [{ functionCall: { name: "get_weather", args: { location: "Lyon" } } }],
          },
          {
            role: "user",
            parts: [
              { functionResponse: { name: "get_weather", response: { content: "18C" } } },
              { text: "And Paris?" },
            ],
          },
        ],
      },
    },
    more: async ({ response, provider, body }) => {
      assert.match(response!.reasoning ?? "", /I will call the tool/);
      const [call] = response!.toolCalls;
      assert.equal(response!.toolCalls.length, 1);
      assert.equal(call!.name, "get_weather");
      assert.deepEqual(JSON.parse(call!.arguments), { location: "Paris", unit: "celsius" });
      const tools = body().tools as { functionDeclarations: { parameters: object }[] }[];
      assert.equal("additionalProperties" in tools[0]!.functionDeclarations[0]!.parameters, false);
      // The signature travels in the call id and goes back with the call next round.
      doneOf(
        await collect(provider.stream({
          messages: [
            { role: "user", content: "Weather?" },
            { role: "assistant", content: "", toolCalls: [call!] },
            { role: "tool", toolCallId: call!.id, name: "get_weather", content: "20C" },
          ],
        })),
      );
      const contents = body(1).contents as { parts: Record<string, unknown>[] }[];
      assert.equal(contents[1]!.parts[0]!.thoughtSignature, "CiQB0e2Kb7x1pWbE0nA4Qm9o");
    },
  },
  {
    name: "Lua gemini adapter reports an error object mid-stream",
    adapter: "gemini",
    model: "gemini-2.5-flash",
    prefix: "/v1beta",
    replies: ["gemini_error_midstream.txt"],
    expect: { error: { kind: "server", message: /overloaded/ } },
  },
  {
    name: "Lua gemini adapter answers non-streamed calls",
    adapter: "gemini",
    model: "gemini-2.5-flash",
    prefix: "/v1beta",
    call: "chat",
    replies: ["gemini_response.json.txt"],
    request: { messages: [{ role: "user", content: "Capital?" }] },
    expect: { text: "Paris is the capital of France." },
    sent: { path: "/v1beta/models/gemini-2.5-flash:generateContent" },
  },
  {
    name: "Lua openai adapter passes a recorded tool-call stream through",
    adapter: "lua:openai",
    model: "gpt-4o-mini",
    prefix: "/v1",
    replies: ["openai_tool_stream.txt"],
    expect: {
      toolCalls: [{
        id: "call_DdmO9pD3xa9XTPNJ32zg2hcA",
        name: "get_weather",
        arguments: '{"location":"Paris"}',
      }],
      usage: { promptTokens: 81, completionTokens: 15, cachedTokens: 64 },
    },
    sent: { headers: { authorization: "Bearer key-1" } },
    more: ({ events }) => {
      assert.ok(events.filter((e) => e.type === "tool_call_delta").length >= 5);
    },
  },
  {
    name: "Lua openai adapter ends with an error reported mid-stream",
    adapter: "lua:openai",
    model: "gpt-4o-mini",
    prefix: "/v1",
    replies: ["openai_error_midstream.txt"],
    expect: { error: { kind: "server", message: /./ }, text: "Partial" },
  },
  {
    name: "Lua deepseek adapter streams reasoning and maps cache hits",
    adapter: "deepseek",
    model: "deepseek-reasoner",
    replies: ["deepseek_reasoning.txt"],
    expect: {
      reasoning: "9.11 vs 9.8: compare 0.11 and 0.80.",
      text: "9.8 is greater.",
      usage: { promptTokens: 18, completionTokens: 40, cachedTokens: 12 },
    },
    sent: { path: "/chat/completions" },
  },
  {
    name: "Lua mistral adapter splits thinking parts and shortens tool-call ids",
    adapter: "mistral",
    model: "magistral-medium-latest",
    prefix: "/v1",
    replies: ["mistral_thinking.txt"],
    expect: { reasoning: "Simple greeting; answer briefly.", text: "Bonjour !" },
    sent: { body: { stream_options: undefined } },
    more: ({ body }) => {
      const messages = body().messages as Record<string, unknown>[];
      assert.equal(messages[3]!.tool_call_id, "call10000");
      assert.equal((messages[2]!.tool_calls as { id: string }[])[0]!.id, "call10000");
    },
  },
  {
    name: "Lua groq adapter takes usage from x_groq",
    adapter: "groq",
    model: "llama-3.3-70b-versatile",
    prefix: "/openai/v1",
    replies: ["groq_usage.txt"],
    expect: { text: "Fast answer.", usage: { promptTokens: 40, completionTokens: 3 } },
  },
  {
    name: "Lua github adapter calls the OpenAI-compatible endpoint with its headers",
    adapter: "github",
    model: "openai/gpt-4.1",
    prefix: "/inference",
    replies: ["openai_tool_stream.txt"],
    expect: {},
    sent: {
      path: "/inference/chat/completions",
      headers: { authorization: "Bearer key-1", "x-github-api-version": "2022-11-28" },
      body: { model: "openai/gpt-4.1" },
    },
  },
  {
    name: "Lua ollama adapter streams NDJSON thinking, text and a tool call",
    adapter: "lua:ollama",
    model: "qwen3:8b",
    apiKey: "",
    replies: ["ollama_thinking_tool.txt"],
    expect: {
      reasoning: "The user wants the weather.",
      text: "Checking.",
      finishReason: "tool_calls",
      toolCalls: [{ id: "call_0", name: "get_weather", arguments: '{"location":"Paris"}' }],
      usage: { promptTokens: 120, completionTokens: 31 },
    },
    sent: {
      path: "/api/chat",
      headers: { authorization: undefined },
      body: { options: { num_predict: 256 } },
    },
    more: ({ body }) => {
      const messages = body().messages as Record<string, unknown>[];
      assert.deepEqual(messages[2]!.tool_calls, [{
        function: { name: "get_weather", arguments: { location: "Lyon" } },
      }]);
      assert.equal(messages[3]!.tool_name, "get_weather");
    },
  },
]);

Deno.test("Lua adapters read every line of a stream that arrives in one network read", async () => {
  for (
    const [adapter, fixture, model] of [
      ["anthropic", "anthropic_text.txt", "claude-sonnet-4-5"],
      ["deepseek", "deepseek_reasoning.txt", "deepseek-reasoner"],
    ] as const
  ) {
    await using server = startReplayServer();
    const split = await recording(fixture);
    const whole = { ...split, frames: [split.frames.join("")] };
    server.enqueue(split, whole);
    const each = await collect(luaProvider(adapter, server, model).stream(WEATHER));
    const once = await collect(luaProvider(adapter, server, model).stream(WEATHER));
    assert.ok(textOf(each).length > 0, adapter);
    assert.equal(textOf(once), textOf(each), adapter);
    assert.deepEqual(doneOf(once), doneOf(each), adapter);
  }
});
