/**
 * The chat's history route over a real text log, and the web page's output channel: replies
 * and messages meant for the page reach it over the SSE hub.
 */
import assert from "node:assert/strict";
import { Agent, type ChatRequest, type KernelEvent } from "../../core/mod.ts";
import { TextLog } from "../../memory/log/text_log.ts";
import { createApp, EventHub, webOutputChannel } from "../../web/mod.ts";
import { ManualClock } from "../fakes/clock.ts";
import { MemoryLogger } from "../fakes/logger.ts";
import { inputText } from "../fakes/scripted_agent.ts";
import { ScriptedLlm } from "../fakes/scripted_llm.ts";
import { openTestRegistry } from "../fakes/config.ts";
import { bearer, fakeWeb } from "./_deps.ts";

Deno.test("GET /api/v1/chat/history pages the text log backwards, searches it and checks its cursor", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-web-history-" });
  const clock = new ManualClock();
  const log = await TextLog.open({ dir, clock });
  try {
    for (let i = 1; i <= 5; i++) {
      await log.append({
        turnId: `t${i}`,
        source: i === 3 ? "cli" : "web",
        channel: i === 3 ? "cli" : "web",
        input: `question ${i}`,
        reply: i === 4 ? "绿茶在柜子里" : `answer ${i}`,
        inputAt: clock.now(),
        replyAt: clock.now(),
      });
    }
    const app = createApp({ ...fakeWeb().deps, history: log });
    const get = async (query: string) => {
      const response = await app.request(`/api/v1/chat/history?${query}`, { headers: bearer });
      return { status: response.status, body: await response.json() };
    };
    const first = await get("limit=2");
    assert.deepEqual(first.body.turns.map((t: { turnId: string }) => t.turnId), ["t4", "t5"]);
    const second = await get(`limit=2&before=${encodeURIComponent(first.body.before)}`);
    assert.deepEqual(second.body.turns.map((t: { turnId: string }) => t.turnId), ["t2", "t3"]);
    assert.equal(second.body.turns[1].channel, "cli");
    assert.deepEqual(
      (await get("q=%E7%BB%BF%E8%8C%B6")).body.turns.map((t: { turnId: string }) => t.turnId),
      ["t4"],
    );
    assert.deepEqual((await get("channel=cli")).body.turns.length, 1);
    const bad = await get("before=..%2F..%2Fconfig.db%3A0");
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /Bad history cursor/);
    assert.equal((await get("limit=0")).status, 400);
    const bare = await createApp(fakeWeb().deps).request("/api/v1/chat/history", {
      headers: bearer,
    });
    assert.equal(bare.status, 501);
  } finally {
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("The web output channel: a reply to a timer set from the web reaches the page, and so does a model's message", async () => {
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const llm = new ScriptedLlm({
    respond: (request: ChatRequest, index) =>
      index === 0 && inputText(request).startsWith("timer:")
        ? {
          text: "",
          toolCalls: [{
            id: "c1",
            name: "output_send__web",
            arguments: JSON.stringify({ payload: "Your tea is ready" }),
          }],
        }
        : { text: "Done" },
  });
  const agent = new Agent({
    clock,
    logger,
    config: openTestRegistry().registry,
    llm,
    persona: () => "test",
  });
  const hub = new EventHub({ clock });
  const unsubscribe = agent.events.subscribe("*", (e) => hub.publish(e));
  agent.outputs.register(webOutputChannel({ hub, clock }));
  const client = hub.connect();
  try {
    // As the timer plugin does: an L3 interrupt whose reply goes to the channel it was set from.
    agent.injectInterrupt("timer", "timer: tea", { priority: 3, channel: "web" });
    await agent.whenIdle();
    const seen: KernelEvent[] = (await client.drain())!.map((m) => JSON.parse(m.data));
    const types = seen.map((e) => e.type);
    assert.equal(types[0], "input");
    const message = seen.find((e) => (e as { type: string }).type === "web_message");
    assert.equal((message as unknown as { text: string }).text, "Your tea is ready");
    const output = seen.find((e) => e.type === "output");
    assert.deepEqual(output?.type === "output" && [output.channel, output.text], ["web", "Done"]);
    assert.equal(types.filter((t) => (t as string) === "web_message").length, 1);
    assert.equal(logger.lines.some((l) => /No output channel/.test(l.msg)), false);
  } finally {
    client.close();
    unsubscribe();
    hub.close();
    await agent.close();
  }
});
