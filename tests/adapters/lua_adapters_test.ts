import assert from "node:assert/strict";
import { LuaAdapterRuntime } from "../../adapters/mod.ts";
import type { ChatRequest, StreamEvent } from "../../core/llm/provider.ts";
import { silentLogger } from "../../core/ports.ts";
import {
  recording,
  type ReplayServer,
  replayStatus,
  startFakeAnthropic,
  startFakeGemini,
  startReplayServer,
} from "../fixtures/fake_replay.ts";
import { collect, lastOf, sourceAt, textOf } from "./_support.ts";

const runtime = new LuaAdapterRuntime({ logger: silentLogger });

const weather: ChatRequest = {
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Weather in Paris?" },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_1", name: "get_weather", arguments: '{"location":"Lyon"}' }],
    },
    { role: "tool", toolCallId: "call_1", name: "get_weather", content: "18C" },
    { role: "user", content: "And Paris?" },
  ],
  tools: [{
    name: "get_weather",
    description: "Weather now",
    parameters: {
      type: "object",
      properties: { location: { type: "string" } },
      additionalProperties: false,
    },
  }],
  maxTokens: 256,
};

function provider(adapter: string, server: ReplayServer, model: string, apiKey = "key-1") {
  const source = sourceAt(server.url, { name: adapter, adapter, model, apiKey });
  return runtime.resolve(adapter)!(source, {});
}

function reasoningOf(events: StreamEvent[]): string {
  return events.map((e) => e.type === "reasoning_delta" ? e.text : "").join("");
}

function done(events: StreamEvent[]) {
  const last = lastOf(events);
  assert.equal(last.type, "done", last.type === "error" ? last.error.message : "");
  assert.equal(events.filter((e) => e.type === "done" || e.type === "error").length, 1);
  return last.type === "done" ? last.response : assert.fail("no response");
}

Deno.test("Lua anthropic adapter streams text with usage from a recorded stream", async () => {
  await using server = startFakeAnthropic();
  server.enqueue(await recording("anthropic_text.txt"));
  const events = await collect(
    provider("anthropic", server, "claude-sonnet-4-5").stream({
      messages: [{ role: "system", content: "Be kind." }, { role: "user", content: "Hi" }],
    }),
  );
  assert.equal(textOf(events), 'Hello! How can I "help" you today? 你好');
  const response = done(events);
  assert.equal(response.finishReason, "stop");
  assert.equal(response.model, "claude-sonnet-4-5-20250929");
  assert.deepEqual(response.usage, { promptTokens: 25, completionTokens: 15, cachedTokens: 0 });
  const [request] = server.requests;
  assert.equal(request?.path, "/v1/messages");
  assert.equal(request?.headers["x-api-key"], "key-1");
  assert.equal(request?.headers["anthropic-version"], "2023-06-01");
  assert.equal(request?.body.system, "Be kind.");
  assert.deepEqual(request?.body.messages, [{
    role: "user",
    content: [{ type: "text", text: "Hi" }],
  }]);
  assert.equal(request?.body.stream, true);
});

Deno.test("Lua anthropic adapter maps thinking, split tool input and cache hits", async () => {
  await using server = startFakeAnthropic();
  server.enqueue(await recording("anthropic_thinking_tool.txt"));
  const events = await collect(provider("anthropic", server, "claude-sonnet-4-5").stream(weather));
  assert.equal(
    reasoningOf(events),
    "The user wants the weather in Paris. I should call get_weather.",
  );
  assert.equal(textOf(events), "Let me check.");
  const response = done(events);
  assert.equal(response.finishReason, "tool_calls");
  assert.deepEqual(response.toolCalls, [{
    id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
    name: "get_weather",
    arguments: '{"location": "Paris, France", "unit": "celsius"}',
  }]);
  assert.deepEqual(response.usage, {
    promptTokens: 2212,
    completionTokens: 89,
    cachedTokens: 1800,
  });
  const body = server.requests[0]!.body;
  assert.equal(body.max_tokens, 256);
  assert.deepEqual(body.messages, [
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
  ]);
  assert.deepEqual(body.tools, [{
    name: "get_weather",
    description: "Weather now",
    input_schema: weather.tools![0]!.parameters,
  }]);
});

Deno.test("Lua anthropic adapter turns an error event mid-stream into a retryable error", async () => {
  await using server = startFakeAnthropic();
  server.enqueue(await recording("anthropic_error_midstream.txt"));
  const events = await collect(provider("anthropic", server, "claude-sonnet-4-5").stream(weather));
  assert.equal(textOf(events), "Partial ans");
  const last = lastOf(events);
  assert.equal(last.type, "error");
  if (last.type === "error") {
    assert.equal(last.error.kind, "server");
    assert.match(last.error.message, /Overloaded/);
  }
});

Deno.test("Lua anthropic adapter answers a non-streamed call and maps prompt-too-long to overflow", async () => {
  await using server = startFakeAnthropic();
  server.enqueue(
    await recording("anthropic_message.json.txt"),
    replayStatus(400, {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "prompt is too long: 210000 tokens > 200000 maximum",
      },
    }),
  );
  const llm = provider("anthropic", server, "claude-sonnet-4-5");
  const response = await llm.chat(weather);
  assert.equal(response.text, "I'll look that up.");
  assert.deepEqual(response.toolCalls, [{
    id: "toolu_01A09q90qw90lq917835lq9",
    name: "get_weather",
    arguments: '{"location":"San Francisco, CA"}',
  }]);
  assert.equal(response.finishReason, "tool_calls");
  await assert.rejects(llm.chat(weather), (error: unknown) => {
    assert.equal((error as { kind?: string }).kind, "overflow");
    return true;
  });
});

Deno.test("Lua gemini adapter streams text and usage from a recorded stream", async () => {
  await using server = startFakeGemini();
  server.enqueue(await recording("gemini_text.txt"));
  const events = await collect(
    provider("gemini", server, "gemini-2.5-flash").stream({
      messages: [{ role: "system", content: "Be kind." }, { role: "user", content: "Hi" }],
      temperature: 0.3,
    }),
  );
  assert.equal(textOf(events), "Hello there! How can I help you today?");
  const response = done(events);
  assert.deepEqual(response.usage, { promptTokens: 9, completionTokens: 36, cachedTokens: 4 });
  const [request] = server.requests;
  assert.equal(request?.path, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
  assert.equal(request?.headers["x-goog-api-key"], "key-1");
  assert.deepEqual(request?.body.systemInstruction, { parts: [{ text: "Be kind." }] });
  assert.deepEqual(request?.body.generationConfig, {
    temperature: 0.3,
    thinkingConfig: { includeThoughts: true },
  });
});

Deno.test("Lua gemini adapter maps thoughts and a function call, keeping its signature", async () => {
  await using server = startFakeGemini();
  server.enqueue(await recording("gemini_thought_tool.txt"));
  const events = await collect(provider("gemini", server, "gemini-2.5-pro").stream(weather));
  assert.match(reasoningOf(events), /I will call the tool/);
  const response = done(events);
  assert.equal(response.finishReason, "tool_calls");
  assert.equal(response.toolCalls.length, 1);
  assert.equal(response.toolCalls[0]!.name, "get_weather");
  assert.deepEqual(JSON.parse(response.toolCalls[0]!.arguments), {
    location: "Paris",
    unit: "celsius",
  });
  const body = server.requests[0]!.body as {
    contents: unknown[];
    tools: { functionDeclarations: { parameters: Record<string, unknown> }[] }[];
  };
  assert.deepEqual(body.contents, [
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
  ]);
  assert.equal(body.tools[0]!.functionDeclarations[0]!.parameters.additionalProperties, undefined);
  // The signature travels in the call id and goes back with the call next round.
  server.enqueue(await recording("gemini_text.txt"));
  const next: ChatRequest = {
    messages: [
      { role: "user", content: "Weather?" },
      { role: "assistant", content: "", toolCalls: response.toolCalls },
      { role: "tool", toolCallId: response.toolCalls[0]!.id, name: "get_weather", content: "20C" },
    ],
  };
  done(await collect(provider("gemini", server, "gemini-2.5-pro").stream(next)));
  const parts = (server.requests[1]!.body.contents as { parts: Record<string, unknown>[] }[])[1]!
    .parts;
  assert.equal(parts[0]!.thoughtSignature, "CiQB0e2Kb7x1pWbE0nA4Qm9o");
});

Deno.test("Lua gemini adapter reports an error object mid-stream and answers non-streamed calls", async () => {
  await using server = startFakeGemini();
  server.enqueue(await recording("gemini_error_midstream.txt"));
  server.enqueue(await recording("gemini_response.json.txt"));
  const llm = provider("gemini", server, "gemini-2.5-flash");
  const events = await collect(llm.stream(weather));
  const last = lastOf(events);
  assert.equal(last.type, "error");
  if (last.type === "error") assert.match(last.error.message, /overloaded/);
  const response = await llm.chat({ messages: [{ role: "user", content: "Capital?" }] });
  assert.equal(response.text, "Paris is the capital of France.");
  assert.equal(server.requests[1]!.path, "/v1beta/models/gemini-2.5-flash:generateContent");
});

Deno.test("Lua openai adapter passes a recorded tool-call stream through", async () => {
  await using server = startReplayServer("/v1");
  server.enqueue(await recording("openai_tool_stream.txt"));
  const events = await collect(provider("lua:openai", server, "gpt-4o-mini").stream(weather));
  const response = done(events);
  assert.deepEqual(response.toolCalls, [{
    id: "call_DdmO9pD3xa9XTPNJ32zg2hcA",
    name: "get_weather",
    arguments: '{"location":"Paris"}',
  }]);
  assert.deepEqual(response.usage, { promptTokens: 81, completionTokens: 15, cachedTokens: 64 });
  assert.ok(events.filter((e) => e.type === "tool_call_delta").length >= 5);
  assert.equal(server.requests[0]!.headers.authorization, "Bearer key-1");
});

Deno.test("Lua openai adapter ends with an error reported mid-stream", async () => {
  await using server = startReplayServer("/v1");
  server.enqueue(await recording("openai_error_midstream.txt"));
  const events = await collect(provider("lua:openai", server, "gpt-4o-mini").stream(weather));
  assert.equal(textOf(events), "Partial");
  const last = lastOf(events);
  assert.equal(last.type === "error" && last.error.kind, "server");
});

Deno.test("Lua deepseek adapter streams reasoning and maps cache hits", async () => {
  await using server = startReplayServer();
  server.enqueue(await recording("deepseek_reasoning.txt"));
  const events = await collect(provider("deepseek", server, "deepseek-reasoner").stream(weather));
  assert.equal(reasoningOf(events), "9.11 vs 9.8: compare 0.11 and 0.80.");
  assert.equal(textOf(events), "9.8 is greater.");
  assert.deepEqual(done(events).usage, {
    promptTokens: 18,
    completionTokens: 40,
    cachedTokens: 12,
  });
  assert.equal(server.requests[0]!.path, "/chat/completions");
});

Deno.test("Lua mistral adapter splits thinking parts and shortens tool-call ids", async () => {
  await using server = startReplayServer("/v1");
  server.enqueue(await recording("mistral_thinking.txt"));
  const events = await collect(
    provider("mistral", server, "magistral-medium-latest").stream(weather),
  );
  assert.equal(reasoningOf(events), "Simple greeting; answer briefly.");
  assert.equal(textOf(events), "Bonjour !");
  done(events);
  const body = server.requests[0]!.body as {
    messages: Record<string, unknown>[];
    [k: string]: unknown;
  };
  assert.equal(body.stream_options, undefined);
  assert.equal(body.messages[3]!.tool_call_id, "call10000");
  const calls = body.messages[2]!.tool_calls as { id: string }[];
  assert.equal(calls[0]!.id, "call10000");
});

Deno.test("Lua groq adapter takes usage from x_groq", async () => {
  await using server = startReplayServer("/openai/v1");
  server.enqueue(await recording("groq_usage.txt"));
  const events = await collect(provider("groq", server, "llama-3.3-70b-versatile").stream(weather));
  assert.equal(textOf(events), "Fast answer.");
  assert.deepEqual(done(events).usage, { promptTokens: 40, completionTokens: 3 });
});

Deno.test("Lua github adapter calls the OpenAI-compatible endpoint with its headers", async () => {
  await using server = startReplayServer("/inference");
  server.enqueue(await recording("openai_tool_stream.txt"));
  done(await collect(provider("github", server, "openai/gpt-4.1").stream(weather)));
  const [request] = server.requests;
  assert.equal(request?.path, "/inference/chat/completions");
  assert.equal(request?.headers["x-github-api-version"], "2022-11-28");
  assert.equal(request?.body.model, "openai/gpt-4.1");
});

Deno.test("Lua ollama adapter streams NDJSON thinking, text and a tool call", async () => {
  await using server = startReplayServer();
  server.enqueue(await recording("ollama_thinking_tool.txt"));
  const events = await collect(provider("lua:ollama", server, "qwen3:8b", "").stream(weather));
  assert.equal(reasoningOf(events), "The user wants the weather.");
  assert.equal(textOf(events), "Checking.");
  const response = done(events);
  assert.equal(response.finishReason, "tool_calls");
  assert.deepEqual(response.toolCalls, [{
    id: "call_0",
    name: "get_weather",
    arguments: '{"location":"Paris"}',
  }]);
  assert.deepEqual(response.usage, { promptTokens: 120, completionTokens: 31 });
  const body = server.requests[0]!.body as {
    messages: Record<string, unknown>[];
    [k: string]: unknown;
  };
  assert.equal(server.requests[0]!.path, "/api/chat");
  assert.deepEqual(body.messages[2]!.tool_calls, [{
    function: { name: "get_weather", arguments: { location: "Lyon" } },
  }]);
  assert.equal(body.messages[3]!.tool_name, "get_weather");
  assert.deepEqual(body.options, { num_predict: 256 });
});

Deno.test("Lua adapters read every line of a stream that arrives in one network read", async () => {
  for (
    const [adapter, fixture, start, model] of [
      ["anthropic", "anthropic_text.txt", startFakeAnthropic, "claude-sonnet-4-5"],
      ["deepseek", "deepseek_reasoning.txt", () => startReplayServer(), "deepseek-reasoner"],
    ] as const
  ) {
    await using server = start();
    const split = await recording(fixture);
    const whole = { ...split, frames: [split.frames.join("")] };
    server.enqueue(split, whole);
    const each = await collect(provider(adapter, server, model).stream(weather));
    const once = await collect(provider(adapter, server, model).stream(weather));
    assert.ok(textOf(each).length > 0, adapter);
    assert.equal(textOf(once), textOf(each), adapter);
    assert.deepEqual(done(once), done(each), adapter);
  }
});
