import assert from "node:assert/strict";
import type { Reply } from "../../../core/mod.ts";
import { reply, startFakeOpenAI } from "../../fixtures/fake_llm.ts";
import { createTestKernel } from "../../fakes/kernel.ts";

Deno.test("Agent interrupt mid-stream closes the HTTP request and reaches the resumed turn as [打断消息]", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  server.enqueue(
    reply.slowText("a long story ".repeat(100), { chunkDelayMs: 10 }),
    reply.text("Your tea is ready."),
    reply.text("The story, from the top."),
  );
  const story = kernel.ask("tell me a long story");
  await server.waitForRequests(1);
  await new Promise((r) => setTimeout(r, 30)); // mid-stream
  const timer = new Promise<Reply>((resolve) => {
    kernel.agent.injectInterrupt("timer", "Tea is ready", { priority: 3, onReply: resolve });
  });
  await server.waitForAborts(1);
  const { channel, text, status } = await timer;
  assert.deepEqual({ channel, text, status }, {
    channel: "timer",
    text: "Your tea is ready.",
    status: "ok",
  });
  const answer = await story;
  assert.deepEqual([answer.status, answer.text], ["ok", "The story, from the top."]);
  assert.equal(server.requests.length, 3);
  assert.equal(server.requests[1]!.body.messages[1]!.content, "Tea is ready");
  const resumed = server.requests[2]!.body.messages;
  assert.equal(resumed[1]!.content, "tell me a long story");
  const note = resumed.at(-1)!;
  assert.equal(note.role, "user");
  assert.match(String(note.content), /^\[打断消息\] timer: Tea is ready\n/);
  assert.match(String(note.content), /Your tea is ready\./);
  const resets = kernel.events.filter((e) => e.type === "content_delta" && e.reset);
  assert.ok(resets.length >= 1, "the partial streamed text was reset");
  assert.equal(kernel.providers.health()[0]!.failures, 0, "a preemption is not a provider failure");
});
