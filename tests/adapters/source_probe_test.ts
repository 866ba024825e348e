/**
 * The setup screen's probe: each API's model list as its reference documents it (OpenAI-style,
 * Anthropic with pages, Gemini with pages and non-chat models, Ollama's tags), the provider's own
 * words for a wrong key, and a test call through the real native client.
 */
import assert from "node:assert/strict";
import { ProviderError, silentLogger, type SourceConfig } from "../../core/mod.ts";
import {
  createProviderFactory,
  createSourceProbe,
  listModels,
  LuaAdapterRuntime,
  systemClock,
} from "../../adapters/mod.ts";
import { reply, startFakeOllama, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { type LoopbackRequest, startLoopbackServer } from "../fixtures/fake_http.ts";

const source = (adapter: string, baseUrl: string, apiKey?: string): SourceConfig => ({
  name: "setup",
  adapter,
  baseUrl,
  model: "",
  enabled: true,
  ...(apiKey ? { apiKey } : {}),
});

/** A loopback API answering each GET from `pages` (path with query → [status, body]). */
function startApi(pages: Record<string, [number, unknown]>) {
  const seen: LoopbackRequest[] = [];
  const server = startLoopbackServer(async (exchange) => {
    seen.push(exchange.request);
    const [status, body] = pages[exchange.request.path] ?? [404, { error: "no such page" }];
    await exchange.head(status, { "content-type": "application/json" });
    await exchange.write(typeof body === "string" ? body : JSON.stringify(body));
    await exchange.end();
  });
  return { url: `http://127.0.0.1:${server.port}`, seen, close: () => server.close() };
}

Deno.test("listModels reads an OpenAI-style GET /models with the Bearer key, sorted", async () => {
  await using server = startFakeOpenAI({ models: ["gpt-4o", "gpt-4o-mini"], apiKey: "sk-right" });
  const models = await listModels(source("deepseek", server.url, "sk-right"));
  assert.deepEqual(models, ["gpt-4o", "gpt-4o-mini"]);
  assert.equal(server.requests[0]!.path, "/v1/models");
  assert.equal(server.requests[0]!.headers.authorization, "Bearer sk-right");
});

Deno.test("listModels rejects a wrong key with the provider's own 401 message", async () => {
  await using server = startFakeOpenAI({ models: ["gpt-4o"], apiKey: "sk-right" });
  await assert.rejects(
    listModels(source("openai", server.url, "sk-wrong-key")),
    (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, "auth");
      assert.equal(error.status, 401);
      assert.match(error.message, /answered 401: Incorrect API key provided: sk-\*\*\*-key/);
      return true;
    },
  );
});

Deno.test("listModels follows Anthropic's pages with x-api-key and anthropic-version", async () => {
  const model = (id: string, name: string) => ({
    type: "model",
    id,
    display_name: name,
    created_at: "2025-05-22T00:00:00Z",
  });
  const api = startApi({
    "/v1/models?limit=1000": [200, {
      data: [model("claude-sonnet-4-20250514", "Claude Sonnet 4")],
      has_more: true,
      first_id: "claude-sonnet-4-20250514",
      last_id: "claude-sonnet-4-20250514",
    }],
    "/v1/models?limit=1000&after_id=claude-sonnet-4-20250514": [200, {
      data: [model("claude-3-5-haiku-20241022", "Claude Haiku 3.5")],
      has_more: false,
      first_id: "claude-3-5-haiku-20241022",
      last_id: "claude-3-5-haiku-20241022",
    }],
  });
  try {
    const models = await listModels(source("anthropic", api.url, "sk-ant-1"));
    assert.deepEqual(models, ["claude-3-5-haiku-20241022", "claude-sonnet-4-20250514"]);
    assert.equal(api.seen[0]!.headers["x-api-key"], "sk-ant-1");
    assert.equal(api.seen[0]!.headers["anthropic-version"], "2023-06-01");
    assert.equal(api.seen[0]!.headers.authorization, undefined);
  } finally {
    await api.close();
  }
});

Deno.test("listModels tells Anthropic's authentication error in its words", async () => {
  const api = startApi({
    "/v1/models?limit=1000": [401, {
      type: "error",
      error: { type: "authentication_error", message: "invalid x-api-key" },
    }],
  });
  try {
    await assert.rejects(
      listModels(source("anthropic", api.url, "bad")),
      /Source "setup" \(127\.0\.0\.1:\d+\) answered 401: invalid x-api-key/,
    );
  } finally {
    await api.close();
  }
});

Deno.test("listModels lists Gemini's chat models across pages, without embedding models", async () => {
  const gemini = (name: string, methods: string[]) => ({
    name: `models/${name}`,
    version: "001",
    displayName: name,
    inputTokenLimit: 1048576,
    outputTokenLimit: 8192,
    supportedGenerationMethods: methods,
  });
  const api = startApi({
    "/v1beta/models?pageSize=1000": [200, {
      models: [
        gemini("gemini-2.0-flash", ["generateContent", "countTokens"]),
        gemini("text-embedding-004", ["embedContent"]),
      ],
      nextPageToken: "Chxtb2RlbHMv",
    }],
    "/v1beta/models?pageSize=1000&pageToken=Chxtb2RlbHMv": [200, {
      models: [gemini("gemini-2.5-pro", ["generateContent"])],
    }],
  });
  try {
    const models = await listModels(source("gemini", `${api.url}/v1beta`, "AIza-key"));
    assert.deepEqual(models, ["gemini-2.0-flash", "gemini-2.5-pro"]);
    assert.equal(api.seen[0]!.headers["x-goog-api-key"], "AIza-key");
  } finally {
    await api.close();
  }
});

Deno.test("listModels reads Ollama's /api/tags; a body of another shape is named", async () => {
  await using ollama = startFakeOllama({ models: ["qwen2.5:7b", "llama3.2:latest"] });
  assert.deepEqual(await listModels(source("ollama", ollama.url)), [
    "llama3.2:latest",
    "qwen2.5:7b",
  ]);
  const api = startApi({ "/models": [200, { models: "none" }], "/api/tags": [200, "<html>"] });
  try {
    await assert.rejects(listModels(source("openai", api.url)), /sent a model list of another/);
    await assert.rejects(
      listModels(source("ollama", api.url)),
      /model list that is not valid JSON/,
    );
  } finally {
    await api.close();
  }
});

Deno.test("SourceProbe.test calls the model through its adapter and returns errors as data", async () => {
  await using server = startFakeOpenAI({ apiKey: "sk-right" });
  server.enqueue(reply.text("OK"));
  const factory = createProviderFactory({ clock: systemClock, logger: silentLogger });
  const probe = createSourceProbe({ factory });
  const good = { ...source("openai", server.url, "sk-right"), model: "gpt-4o-mini" };
  const result = await probe.test(good);
  assert.equal(result.ok, true);
  assert.equal(result.ok && result.text, "OK");
  assert.equal(server.requests[0]!.body.model, "gpt-4o-mini");
  const wrong = await probe.test({ ...good, apiKey: "sk-nope-1234" });
  assert.equal(wrong.ok, false);
  assert.equal(!wrong.ok && wrong.error.kind, "auth");
  assert.match(!wrong.ok ? wrong.error.message : "", /Incorrect API key provided/);
  const listed = await probe.models({ ...good, apiKey: "sk-nope-1234" });
  assert.equal(!listed.ok && listed.error.status, 401);
  const unknown = await probe.test({ ...good, adapter: "nonesuch" });
  assert.equal(!unknown.ok && unknown.error.kind, "config");
  assert.match(!unknown.ok ? unknown.error.message : "", /unknown adapter "nonesuch"/);
});

Deno.test("SourceProbe.test reaches Anthropic through its Lua adapter, and tells its 401", async () => {
  const answer = {
    id: "msg_01XFDUDYJgAACzvnptvVoYEL",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5-20250929",
    content: [{ type: "text", text: "OK" }],
    "stop_reason": "end_turn",
    "stop_sequence": null,
    usage: { input_tokens: 14, output_tokens: 4 },
  };
  const calls: LoopbackRequest[] = [];
  const server = startLoopbackServer(async (exchange) => {
    calls.push(exchange.request);
    const right = exchange.request.headers["x-api-key"] === "sk-ant-right";
    await exchange.head(right ? 200 : 401, { "content-type": "application/json" });
    await exchange.write(JSON.stringify(
      right ? answer : {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      },
    ));
    await exchange.end();
  });
  const lua = new LuaAdapterRuntime({ logger: silentLogger });
  try {
    const factory = createProviderFactory({
      clock: systemClock,
      logger: silentLogger,
      adapters: lua.adapters(),
      resolve: (name) => lua.resolve(name),
    });
    const probe = createSourceProbe({ factory });
    const claude = {
      ...source("anthropic", `http://127.0.0.1:${server.port}`, "sk-ant-right"),
      model: "claude-sonnet-4-5",
    };
    const ok = await probe.test(claude);
    assert.deepEqual(ok.ok && [ok.text, ok.model], ["OK", "claude-sonnet-4-5-20250929"]);
    assert.equal(calls[0]!.path, "/v1/messages");
    assert.equal(JSON.parse(calls[0]!.body).max_tokens, 16);
    const refused = await probe.test({ ...claude, apiKey: "sk-ant-wrong" });
    assert.equal(!refused.ok && refused.error.status, 401);
    assert.match(!refused.ok ? refused.error.message : "", /answered 401: invalid x-api-key/);
  } finally {
    await server.close();
  }
});
