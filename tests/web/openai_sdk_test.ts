/**
 * The official `openai` SDK drives the real server on 127.0.0.1 (a real Agent over a fake LLM
 * speaking OpenAI's wire format): answers, streams, usage, models, errors and cancellation.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { reply } from "../fixtures/fake_llm.ts";
import { TOKEN } from "./_deps.ts";
import { serveAgent, type ServedAgent } from "./_agent_server.ts";

function client(s: ServedAgent, apiKey = TOKEN, maxRetries = 0): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${s.base}/v1`, maxRetries });
}

/** The reply statuses the kernel sent out, in order. */
function outputs(s: ServedAgent): string[] {
  return s.kernel.events.flatMap((e) => e.type === "output" ? [e.status] : []);
}

async function waitFor(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(done(), `timed out waiting for ${what}`);
}

Deno.test("openai SDK: chat.completions.create answers with the model echoed and usage", async () => {
  await using s = serveAgent();
  s.llm.enqueue(reply.text("Tea at four.", { usage: { prompt: 31, completion: 4 } }));
  const answer = await client(s).chat.completions.create({
    model: "homeagent",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "When is tea?" },
      { role: "assistant", content: "Which day?" },
      { role: "user", content: "Today." },
    ],
  });
  assert.equal(answer.object, "chat.completion");
  assert.equal(answer.model, "homeagent");
  assert.equal(answer.choices[0]!.message.content, "Tea at four.");
  assert.equal(answer.choices[0]!.finish_reason, "stop");
  assert.deepEqual(answer.usage, { prompt_tokens: 31, completion_tokens: 4, total_tokens: 35 });
  const sent = s.llm.requests[0]!.body;
  assert.equal(sent.tools, undefined, "no tools offered");
  const user = String(sent.messages.at(-1)!.content);
  assert.match(user, /system: Be brief\.\nuser: When is tea\?\nassistant: Which day\?/);
  assert.match(user, /\[Now\]\nToday\.$/);
});

Deno.test("openai SDK: a stream with include_usage ends in a usage chunk with no choices", async () => {
  await using s = serveAgent();
  s.llm.enqueue(
    reply.text("Streaming works fine.", { chunkSize: 5, usage: { prompt: 9, completion: 6 } }),
  );
  const stream = await client(s).chat.completions.create({
    model: "homeagent",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "Stream please" }],
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  assert.ok(chunks.every((c) => c.model === "homeagent" && c.object === "chat.completion.chunk"));
  const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
  assert.equal(text, "Streaming works fine.");
  const last = chunks.at(-1)!;
  assert.deepEqual(last.choices, []);
  assert.deepEqual(last.usage, { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 });
  assert.ok(chunks.slice(0, -1).every((c) => c.usage === null), "usage: null until the last");
  assert.equal(chunks.at(-2)!.choices[0]!.finish_reason, "stop");

  // Without include_usage: no usage anywhere and no choice-less chunk.
  s.llm.enqueue(reply.text("Plain stream."));
  const plain = await client(s).chat.completions.create({
    model: "homeagent",
    stream: true,
    messages: [{ role: "user", content: "Again" }],
  });
  const again = [];
  for await (const chunk of plain) again.push(chunk);
  assert.ok(again.every((c) => c.usage === undefined && c.choices.length === 1));
  assert.equal(again.map((c) => c.choices[0]!.delta.content ?? "").join(""), "Plain stream.");
});

Deno.test("openai SDK: models.list, models.retrieve and an unknown model", async () => {
  await using s = serveAgent();
  const openai = client(s);
  const models = [];
  for await (const m of openai.models.list()) models.push(m.id);
  assert.deepEqual(models, ["homeagent"]);
  const one = await openai.models.retrieve("homeagent");
  assert.equal(one.id, "homeagent");
  assert.equal(one.owned_by, "homeagent");
  await assert.rejects(openai.models.retrieve("gpt-4o"), (e: unknown) => {
    assert.ok(e instanceof OpenAI.NotFoundError);
    assert.equal(e.code, "model_not_found");
    assert.equal(e.type, "invalid_request_error");
    return true;
  });
  await assert.rejects(
    openai.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }],
    }),
    (e: unknown) => e instanceof OpenAI.NotFoundError && e.code === "model_not_found",
  );
  assert.equal(s.llm.requests.length, 0);
});

Deno.test("openai SDK: a wrong key, a bad body and an unknown route raise OpenAI's errors", async () => {
  await using s = serveAgent();
  await assert.rejects(client(s, "sk-wrong").models.list(), (e: unknown) => {
    assert.ok(e instanceof OpenAI.AuthenticationError);
    assert.equal(e.status, 401);
    assert.equal(e.code, "invalid_api_key");
    return true;
  });
  const openai = client(s);
  await assert.rejects(
    openai.chat.completions.create({ model: "homeagent", messages: [] }),
    (e: unknown) => {
      assert.ok(e instanceof OpenAI.BadRequestError);
      assert.equal(e.param, "messages");
      assert.equal(e.type, "invalid_request_error");
      return true;
    },
  );
  await assert.rejects(
    // deno-lint-ignore no-explicit-any
    openai.chat.completions.create({ model: "homeagent", messages: [{ role: "robot" } as any] }),
    (e: unknown) => e instanceof OpenAI.BadRequestError && e.param === "messages.[0].role",
  );
  // The exact body: the four fields OpenAI sends, nothing else.
  const raw = await fetch(`${s.base}/v1/embeddings`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(raw.status, 404);
  const body = await raw.json();
  assert.deepEqual(Object.keys(body.error), ["message", "type", "param", "code"]);
  assert.equal(body.error.type, "invalid_request_error");
});

Deno.test("openai SDK: no LLM source is one 503 error, streamed or not, and not retried", async () => {
  await using s = serveAgent({ noSource: true });
  const openai = client(s, TOKEN, 2); // the SDK's retries stay on: x-should-retry stops them
  const messages = [{ role: "user" as const, content: "hi" }];
  const check = (e: unknown) => {
    assert.ok(e instanceof OpenAI.InternalServerError);
    assert.equal(e.status, 503);
    assert.equal(e.code, "no_llm_source");
    assert.match(e.message, /No LLM source is configured/);
    return true;
  };
  await assert.rejects(openai.chat.completions.create({ model: "homeagent", messages }), check);
  await assert.rejects(
    openai.chat.completions.create({ model: "homeagent", messages, stream: true }),
    check,
  );
  assert.deepEqual(outputs(s), ["error", "error"], "one turn each: no retries");
});

Deno.test("openai SDK: a source failing mid-stream ends the stream with an error event", async () => {
  await using s = serveAgent();
  // The manager retries a dropped stream once; both attempts break off.
  s.llm.enqueue(reply.text("This answer breaks off", { chunkSize: 4, cut: "drop" }));
  s.llm.enqueue(reply.text("This answer breaks off", { chunkSize: 4, cut: "drop" }));
  const stream = await client(s).chat.completions.create({
    model: "homeagent",
    stream: true,
    messages: [{ role: "user", content: "Talk" }],
  });
  let text = "";
  await assert.rejects(
    (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })(),
    (e: unknown) => {
      assert.ok(e instanceof OpenAI.APIError);
      assert.equal(e.type, "server_error");
      return true;
    },
  );
  assert.ok(text.length > 0, "some content arrived before the error");
});

Deno.test("openai endpoint: aborting an SDK stream or a plain request cancels its turn", async () => {
  await using s = serveAgent();
  s.llm.enqueue(reply.slowText("word ".repeat(400), { chunkDelayMs: 20 }));
  const stream = await client(s).chat.completions.create({
    model: "homeagent",
    stream: true,
    messages: [{ role: "user", content: "A long story" }],
  });
  for await (const chunk of stream) {
    if (chunk.choices[0]?.delta.content) break; // leaving the loop aborts the request
  }
  await s.llm.waitForAborts(1);
  await waitFor(() => outputs(s).length === 1, "the cancelled turn's reply");
  assert.deepEqual(outputs(s), ["stopped"]);

  // A plain request whose client gives up while the agent is still answering.
  s.llm.enqueue(reply.slowText("word ".repeat(400), { chunkDelayMs: 20 }));
  const controller = new AbortController();
  const pending = fetch(`${s.base}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "homeagent", messages: [{ role: "user", content: "Again" }] }),
    signal: controller.signal,
  });
  await s.llm.waitForRequests(2);
  controller.abort();
  await assert.rejects(pending, (e: unknown) => e instanceof Error && e.name === "AbortError");
  await s.llm.waitForAborts(2);
  await waitFor(() => outputs(s).length === 2, "the second cancelled turn's reply");
  assert.deepEqual(outputs(s), ["stopped", "stopped"]);
  assert.equal(s.kernel.agent.status().state, "idle");
});
