/**
 * A source is outside code: an answer that never ends (or an error body that never ends) must
 * stop the call at a bound, not grow the daemon. Real HTTP on 127.0.0.1, bodies pulled on demand
 * so the test sees how much the client read.
 */
import assert from "node:assert/strict";
import { OllamaProvider, OpenAIProvider } from "../../adapters/mod.ts";
import type { ChatRequest } from "../../core/llm/provider.ts";
import { collect, isProviderError, lastOf, sourceAt } from "./_support.ts";
import { serveEndlessAnswer } from "../fixtures/endless_answer.ts";

const hello: ChatRequest = { messages: [{ role: "user", content: "Hi" }] };

/** A server answering `status` with `piece` repeated `times` times, counting what was pulled. */
function endlessServer(status: number, contentType: string, piece: string, times: number) {
  const server = serveEndlessAnswer({
    piece,
    times,
    status,
    headers: { "content-type": contentType },
  });
  return {
    served: server,
    url: `${server.origin}/v1`,
    [Symbol.asyncDispose]: () => server[Symbol.asyncDispose](),
  };
}

const delta = (text: string) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`;

Deno.test("OpenAI client stops a streamed answer past maxBodyBytes with a malformed error", async () => {
  // 4 MiB of valid deltas against a 1 MiB bound; the old client gathered all of it as text.
  await using server = endlessServer(200, "text/event-stream", delta("x".repeat(4000)), 1000);
  const provider = new OpenAIProvider({
    source: sourceAt(server.url),
    maxBodyBytes: 1024 * 1024,
  });
  const events = await collect(provider.stream(hello));
  const last = lastOf(events);
  assert.ok(last.type === "error", `ended with ${last.type}`);
  assert.ok(isProviderError("malformed", /more than 1048576 bytes in one answer/)(last.error));
});

Deno.test("OpenAI client refuses a non-streamed answer past maxBodyBytes", async () => {
  await using server = endlessServer(200, "application/json", " ".repeat(65536), 64);
  const provider = new OpenAIProvider({ source: sourceAt(server.url), maxBodyBytes: 1024 * 1024 });
  await assert.rejects(provider.chat(hello), isProviderError("malformed", /more than 1048576/));
});

Deno.test("Ollama client stops an NDJSON stream without newlines past maxBodyBytes", async () => {
  await using server = endlessServer(200, "application/x-ndjson", "x".repeat(65536), 64);
  const provider = new OllamaProvider({
    source: sourceAt(server.url, { adapter: "ollama" }),
    maxBodyBytes: 1024 * 1024,
  });
  const last = lastOf(await collect(provider.stream(hello)));
  assert.ok(last.type === "error", `ended with ${last.type}`);
  assert.ok(isProviderError("malformed", /more than 1048576/)(last.error));
});

Deno.test("an error answer's body is read only as far as its message needs", async () => {
  // 16 MiB of error body: the status is the news; the old client read every byte of it.
  await using server = endlessServer(500, "text/plain", "e".repeat(65536), 256);
  const provider = new OpenAIProvider({ source: sourceAt(server.url) });
  const last = lastOf(await collect(provider.stream(hello)));
  assert.ok(last.type === "error", `ended with ${last.type}`);
  assert.ok(isProviderError("server", /answered 500/)(last.error));
  assert.ok(server.served.pulled < 4 * 1024 * 1024, `pulled ${server.served.pulled} bytes`);
});
