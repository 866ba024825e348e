import assert from "node:assert/strict";
import { createApp, HttpError, openAIError, StreamedText } from "../../web/mod.ts";
import { reply } from "../fixtures/fake_llm.ts";
import { fakeWeb, TOKEN } from "./_deps.ts";
import { serveAgent } from "./_agent_server.ts";

const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

Deno.test("POST /v1/chat/completions answers an OpenAI client from the agent, out of memory", async () => {
  await using s = serveAgent();
  s.llm.enqueue(reply.text("Hello from HomeAgent", { usage: { prompt: 21, completion: 4 } }));
  const response = await fetch(`${s.base}/v1/chat/completions`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      model: "homeagent",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi there" }],
    }),
  });
  assert.equal(response.status, 200);
  const body = await response.json();
  assert.equal(body.object, "chat.completion");
  assert.match(body.id, /^chatcmpl-/);
  assert.deepEqual(body.choices, [{
    index: 0,
    message: { role: "assistant", content: "Hello from HomeAgent", refusal: null },
    logprobs: null,
    finish_reason: "stop",
  }]);
  assert.deepEqual(body.usage, { prompt_tokens: 21, completion_tokens: 4, total_tokens: 25 });
  const sent = s.llm.requests[0]!.body;
  assert.equal(sent.tools, undefined, "no tools offered");
  const user = sent.messages.find((m) => m.role === "user")!;
  assert.match(String(user.content), /system: Be brief\.[\s\S]*Hi there/);
  assert.equal(s.kernel.agent.context.size(), 0, "not written to the context window");

  s.llm.enqueue(reply.text("Noted."));
  const kept = await fetch(`${s.base}/v1/chat/completions`, {
    method: "POST",
    headers: { ...headers, "x-homeagent-remember": "1" },
    body: JSON.stringify({ messages: [{ role: "user", content: "Remember tea" }] }),
  });
  assert.equal((await kept.json()).choices[0].message.content, "Noted.");
  assert.equal(s.kernel.agent.context.size(), 2, "remembered when asked");

  const models = await (await fetch(`${s.base}/v1/models`, { headers })).json();
  assert.deepEqual(models.data.map((m: { id: string }) => m.id), ["homeagent"]);
  const bad = await fetch(`${s.base}/v1/chat/completions`, {
    method: "POST",
    headers,
    body: JSON.stringify({ messages: [{ role: "assistant", content: "x" }] }),
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(await bad.json(), {
    error: {
      message: "messages: no user message",
      type: "invalid_request_error",
      param: "messages",
      code: null,
    },
  });
});

Deno.test("POST /v1/chat/completions streams chunks, usage and [DONE] in the OpenAI wire format", async () => {
  await using s = serveAgent();
  s.llm.enqueue(
    reply.text("Streaming works fine.", { chunkSize: 5, usage: { prompt: 9, completion: 6 } }),
  );
  const response = await fetch(`${s.base}/v1/chat/completions`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      model: "homeagent",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: [{ type: "text", text: "Stream please" }] }],
    }),
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
  const text = await response.text();
  const datas = text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6));
  assert.equal(datas.at(-1), "[DONE]");
  const chunks = datas.slice(0, -1).map((d) => JSON.parse(d));
  assert.ok(chunks.every((c) => c.object === "chat.completion.chunk"));
  assert.deepEqual(chunks[0].choices[0].delta, { role: "assistant", content: "" });
  const content = chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("");
  assert.equal(content, "Streaming works fine.");
  assert.ok(chunks.filter((c) => c.choices[0]?.delta?.content).length >= 3, "several deltas");
  assert.equal(chunks.at(-2).choices[0].finish_reason, "stop");
  assert.deepEqual(chunks.at(-1).usage, {
    prompt_tokens: 9,
    completion_tokens: 6,
    total_tokens: 15,
  });
  assert.equal(s.kernel.agent.context.size(), 0);
});

Deno.test("openAIError maps HomeAgent codes through one table, keeping unknown ones", () => {
  const overflow = openAIError(new HttpError(500, "context_length_exceeded", "Too long"));
  assert.equal(overflow.status, 400);
  assert.deepEqual(overflow.body.error, {
    message: "Too long",
    type: "invalid_request_error",
    param: "messages",
    code: "context_length_exceeded",
  });
  const none = openAIError(new HttpError(500, "no_provider", "No LLM source is configured"));
  assert.equal(none.status, 503);
  assert.equal(none.headers["x-should-retry"], "false");
  const odd = openAIError(new HttpError(418, "teapot", "Short and stout"));
  assert.equal(odd.status, 418);
  assert.deepEqual(odd.body.error, {
    message: "Short and stout",
    type: "invalid_request_error",
    param: null,
    code: "teapot",
  });
  assert.equal(openAIError(new Error("boom")).body.error.type, "server_error");
});

Deno.test("POST /v1/chat/completions answers a full queue with 429 rate_limit_exceeded", async () => {
  const fake = fakeWeb();
  const app = createApp({
    ...fake.deps,
    chat: {
      inject: () => ({ accepted: false, inputId: "x", reason: "The input queue is full" }),
      stop: () => ({ wasRunning: false }),
    },
  });
  const r = await app.request("/v1/chat/completions", {
    method: "POST",
    headers,
    body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
  });
  assert.equal(r.status, 429);
  const body = await r.json();
  assert.equal(body.error.code, "rate_limit_exceeded");
  assert.equal(body.error.type, "requests");
});

Deno.test("StreamedText sends a restarted attempt only past what the client has", () => {
  const text = new StreamedText();
  assert.equal(text.push({ text: "Hello ", reset: false }), "Hello ");
  assert.equal(text.push({ text: "wor", reset: false }), "wor");
  // A fallback starts over; the same words are not sent twice.
  assert.equal(text.push({ text: "", reset: true }), "");
  assert.equal(text.push({ text: "Hello w", reset: false }), "");
  assert.equal(text.push({ text: "orld!", reset: false }), "ld!");
  assert.equal(text.finish("Hello world! Bye."), " Bye.");
  // An attempt that contradicts what was sent sends nothing more, and finish says so.
  const other = new StreamedText();
  other.push({ text: "Yes, ", reset: false });
  assert.equal(other.push({ text: "No", reset: true }), "");
  assert.equal(other.push({ text: ", never", reset: false }), "");
  assert.equal(other.finish("No, never"), undefined);
});
