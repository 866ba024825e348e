/**
 * LLM adapter figures.
 *
 * `adapter_overhead_ratio`: the median time of one streamed request (a 600-character answer
 * in 4-character SSE chunks with usage, from a loopback OpenAI-compatible server) through the
 * Lua openai adapter (`lua:openai`) over the same request through the native TypeScript
 * client; runs alternate so both see the same machine state. Target ≤ 1.1.
 * `adapter_overhead_ratio_one_write`: the same with the whole stream in one write (a
 * buffering proxy), so every line of the answer crosses into Lua in one batch.
 *
 * `adapter_chunk_us`: one `transform_stream_chunk` call of the Lua openai adapter on a real
 * chunk, through the sandbox (budget hook, per-stream state) and back.
 * `adapter_chunk_us_anthropic`: the same for the anthropic adapter, which decodes and
 * re-encodes (a tool-input delta, which takes the full json.lua path).
 */
import {
  bundledAdapters,
  createLuaVm,
  LuaAdapterRuntime,
  OpenAIProvider,
} from "../../adapters/mod.ts";
import type { ChatRequest, Provider } from "../../core/mod.ts";
import { silentLogger } from "../../core/mod.ts";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { type Figure, quantile, round } from "./_figure.ts";
import { LuaFactory } from "wasmoon";

const ROUNDS = 200;
const WARMUP = 20;
const CALLS = 20_000;
const ANSWER = "The quick brown fox jumps over the lazy dog. ".repeat(14).slice(0, 600);
const hello: ChatRequest = { messages: [{ role: "user", content: "Tell me something" }] };

async function timeStream(provider: Provider): Promise<number> {
  const started = performance.now();
  for await (const event of provider.stream(hello)) {
    if (event.type === "error") throw event.error;
  }
  return performance.now() - started;
}

async function overhead(): Promise<Record<string, Figure>> {
  return { "adapter_overhead_ratio": await overheadRatio(false) };
}

async function overheadOneWrite(): Promise<Record<string, Figure>> {
  return { "adapter_overhead_ratio_one_write": await overheadRatio(true) };
}

async function overheadRatio(oneWrite: boolean): Promise<Figure> {
  await using server = startFakeOpenAI({
    fallback: reply.text(ANSWER, { chunkSize: 4, oneWrite }),
  });
  const source = {
    name: "bench",
    adapter: "openai",
    baseUrl: server.url,
    model: "gpt-4o",
    enabled: true,
  };
  const native = new OpenAIProvider({ source });
  const lua = new LuaAdapterRuntime({ logger: silentLogger }).resolve("lua:openai")!(
    { ...source, adapter: "lua:openai" },
    {},
  );
  const nativeMs: number[] = [];
  const luaMs: number[] = [];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const a = await timeStream(native);
    const b = await timeStream(lua);
    if (i >= WARMUP) {
      nativeMs.push(a);
      luaMs.push(b);
    }
  }
  return { value: round(quantile(luaMs, 0.5) / quantile(nativeMs, 0.5), 3), unit: "ratio" };
}

async function chunkCost(adapter: string, line: string, setup?: string[]): Promise<number> {
  const vm = await createLuaVm(adapter, bundledAdapters.get(adapter)!, `${adapter}.lua`, {
    factory: new LuaFactory(),
    logger: silentLogger,
  });
  try {
    for (const s of setup ?? []) vm.streamChunk(1, s);
    for (let i = 0; i < 2000; i++) vm.streamChunk(1, line);
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) vm.streamChunk(1, line);
    return round((performance.now() - started) * 1000 / CALLS, 2);
  } finally {
    vm.close();
  }
}

async function chunks(): Promise<Record<string, Figure>> {
  const openaiLine = JSON.stringify({
    id: "chatcmpl-x",
    object: "chat.completion.chunk",
    created: 0,
    model: "gpt-4o",
    choices: [{ index: 0, delta: { content: "Hell" }, finish_reason: null }],
  });
  const start = JSON.stringify({
    type: "message_start",
    message: { model: "claude", usage: { input_tokens: 1, output_tokens: 1 } },
  });
  const tool = JSON.stringify({
    type: "content_block_start",
    index: 1,
    content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} },
  });
  const anthropicLine = JSON.stringify({
    type: "content_block_delta",
    index: 1,
    delta: { type: "input_json_delta", partial_json: '{"location": "Par' },
  });
  return {
    "adapter_chunk_us": { value: await chunkCost("openai", openaiLine), unit: "µs" },
    "adapter_chunk_us_anthropic": {
      value: await chunkCost("anthropic", anthropicLine, [start, tool]),
      unit: "µs",
    },
  };
}

/** The adapter figures by name. */
export const figures = {
  "adapter_overhead_ratio": overhead,
  "adapter_overhead_ratio_one_write": overheadOneWrite,
  "adapter_chunk_us": chunks,
  "adapter_chunk_us_anthropic": chunks,
};
