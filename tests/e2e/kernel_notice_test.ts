import assert from "node:assert/strict";
import { join } from "node:path";
import { type FakeRequest, reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { runMain, startServe } from "../fakes/daemon.ts";
import { inputText } from "../fakes/scripted_agent.ts";

const firstUser = (r: FakeRequest) => inputText(r.body as { messages: { role: string }[] });

Deno.test("A source that refuses its key raises an L4 notice that preempts the running chat", async () => {
  await using server = startFakeOpenAI({
    fallback: (request) => {
      if (request.body.model === "revoked") return reply.status(401, "Incorrect API key");
      return reply.text(firstUser(request).startsWith("LLM source") ? "noted" : "hi");
    },
  });
  const home = await Deno.makeTempDir({ prefix: "homeagent-notice-" });
  try {
    for (const [key, value] of [["base_url", server.url], ["model", "spare"]]) {
      const set = await runMain([
        "config",
        "set",
        `core.llm.sources.spare.${key}`,
        value!,
        "--home",
        home,
      ]);
      assert.equal(set.code, 0, set.stderr);
    }
    await using daemon = await startServe(home, {
      HOMEAGENT_LLM_BASE_URL: server.url,
      HOMEAGENT_LLM_MODEL: "revoked",
      HOMEAGENT_LLM_API_KEY: "sk-revoked",
    });
    const chat = await runMain(["chat", "--home", home, "hello"]);
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(chat.stdout, "hi\n");
    const notice = server.requests.find((r) => firstUser(r).startsWith('LLM source "env"'));
    assert.ok(notice, "the notice became a turn of its own");
    assert.match(firstUser(notice), /is unusable until its settings change: .*401/);
    const resumed = server.requests.at(-1)!;
    assert.equal(firstUser(resumed), "hello");
    const notes = resumed.body.messages.filter((m) => String(m.content).startsWith("[打断消息]"));
    assert.equal(notes.length, 1, "the chat was preempted by the L4 notice and resumed");
    assert.match(String(notes[0]!.content), /^\[打断消息\] kernel: LLM source "env"/);
    const stopped = await daemon.stop();
    assert.match(stopped.stderr, /"msg":"Kernel notice".*"kind":"provider_unusable"/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("A store moved aside at start reaches the model as an L4 notice", async () => {
  await using server = startFakeOpenAI({ fallback: () => reply.text("noted") });
  const home = await Deno.makeTempDir({ prefix: "homeagent-notice-" });
  try {
    await Deno.mkdir(join(home, "memory"), { recursive: true });
    await Deno.writeTextFile(join(home, "memory", "context.json"), "{ not json");
    await using _daemon = await startServe(home, {
      HOMEAGENT_LLM_BASE_URL: server.url,
      HOMEAGENT_LLM_MODEL: "fake-model",
    });
    await server.waitForRequests(1, 10_000);
    const text = firstUser(server.requests[0]!);
    assert.match(text, /context window file is corrupt.*context\.json \(moved to .*corrupt/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
