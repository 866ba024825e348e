import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../../fixtures/fake_llm.ts";
import { createTestKernel } from "../../fakes/kernel.ts";

Deno.test("Agent gives every accepted input exactly one reply, in order", async () => {
  await using server = startFakeOpenAI({
    fallback: (request) => reply.text(`re: ${request.body.messages.at(-1)!.content}`),
  });
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  const replies = new Map<string, string[]>();
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const result = kernel.agent.injectInput("test", `message ${i}`, {
      onReply: (r) => replies.set(r.inputId, [...(replies.get(r.inputId) ?? []), r.text]),
    });
    assert.equal(result.accepted, true);
    ids.push(result.inputId);
  }
  await kernel.agent.whenIdle();
  assert.equal(replies.size, 20);
  ids.forEach((id, i) => assert.deepEqual(replies.get(id), [`re: message ${i}`]));
});

Deno.test("Agent stop cancels the running turn and closes the HTTP request", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  server.enqueue(reply.slowText("a very long answer ".repeat(50), { chunkDelayMs: 20 }));
  const pending = kernel.ask("talk a lot");
  await server.waitForRequests(1);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(kernel.agent.stopCurrentTurn(), true);
  const answer = await pending;
  assert.equal(answer.status, "stopped");
  await server.waitForAborts(1);
  assert.equal(kernel.providers.health()[0]!.failures, 0, "a user stop is not a provider failure");
  server.enqueue(reply.text("next one"));
  assert.equal((await kernel.ask("again")).text, "next one");
});

Deno.test("Agent picks up a changed LLM source on the next turn", async () => {
  await using first = startFakeOpenAI({ fallback: reply.text("from first") });
  await using second = startFakeOpenAI({ fallback: reply.text("from second") });
  await using kernel = createTestKernel({ sources: [{ name: "main", server: first }] });
  assert.equal((await kernel.ask("a")).text, "from first");
  kernel.setSource({ name: "main", server: second });
  assert.equal((await kernel.ask("b")).text, "from second");
});

Deno.test("Agent refuses input beyond its inbox capacity with a reply", async () => {
  await using server = startFakeOpenAI({ fallback: reply.slowText("slow", { chunkDelayMs: 30 }) });
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  const statuses: string[] = [];
  let refused = 0;
  for (let i = 0; i < 260; i++) {
    const r = kernel.agent.injectInput("test", `m${i}`, {
      onReply: (x) => statuses.push(x.status),
    });
    if (!r.accepted) refused++;
  }
  assert.ok(refused >= 3, `expected refusals, got ${refused}`);
  assert.equal(statuses.filter((s) => s === "refused").length, refused);
  await kernel.agent.close();
  assert.equal(statuses.length, 260);
});
