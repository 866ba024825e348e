/**
 * The dashboard in Debian's chromium (playwright-core): log in, chat with a streamed reply,
 * stop a slow reply, see a committed fact drawn in the memory view, and a setting refused.
 * Screenshots go to tests/artifacts/web/.
 */
import assert from "node:assert/strict";
import { reply } from "../fixtures/fake_llm.ts";
import { TOKEN } from "./_deps.ts";
import { ARTIFACTS, browserTest } from "./_browser.ts";

browserTest(
  "Dashboard in chromium: login, streamed chat, stop, memory graph, settings validation",
  async (browser, served) => {
    const page = await browser.newPage({
      viewport: { width: 412, height: 860 },
      locale: "en-US",
    });
    const shot = (name: string) =>
      page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });

    // Log in with the token through the form.
    await page.goto(served.base + "/");
    await page.locator("#token").fill("wrong-token");
    await page.locator("#login button[type=submit]").click();
    await page.locator("#login .error", { hasText: "Wrong token" }).waitFor();
    await page.locator("#token").fill(TOKEN);
    await shot("01-login");
    await page.locator("#login button[type=submit]").click();
    await page.locator("#tab-chat.on").waitFor();
    await page.locator("body[data-sse=open]").waitFor();

    // A streamed reply from the fake LLM, rendered as Markdown. The model answers only once the
    // page has shown the turn under way: on a loaded machine a short reply could end before the
    // page was looked at, and the live bubble is gone once the reply is done.
    const shown = Promise.withResolvers<void>();
    served.llm.enqueue(async () => {
      await shown.promise;
      return reply.slowText("Hello **world**, this reply was *streamed* from the fake LLM.", {
        chunkDelayMs: 15,
        reasoning: "The owner greets me.",
      });
    });
    await page.locator("#text").fill("Say hello");
    await page.locator("#send").click();
    await page.locator(".msg.agent.live .phase").waitFor();
    shown.resolve();
    const done = page.locator(".msg.agent.done").last();
    await done.locator("strong", { hasText: "world" }).waitFor();
    assert.match(await done.locator(".text").innerText(), /streamed from the fake LLM/);
    await shot("02-chat-streamed");

    // Stop during a slow reply: the turn really stops and the LLM call is cut.
    served.llm.enqueue(reply.slowText("word ".repeat(400), { chunkDelayMs: 40 }));
    await page.locator("#text").fill("Tell me a very long story");
    await page.locator("#send").click();
    const live = page.locator(".msg.agent.live .text", { hasText: "word word" });
    await live.waitFor();
    await page.locator("#stop").click();
    const stopped = page.locator(".msg.agent.done .status", { hasText: "Stopped" });
    await stopped.waitFor();
    await served.llm.waitForAborts(1);
    await shot("03-chat-stopped");

    // A committed fact is drawn in the memory view; clicking shows its sentence.
    await served.graph.commit([{
      subject: "Alice",
      predicate: "lives_in",
      object: "Paris",
      sentence: "Alice moved to Paris last spring.",
    }]);
    await page.locator("#tab-memory").click();
    await page.locator("#graph[data-nodes*='Alice'][data-edges*='Alice|lives_in|Paris']")
      .waitFor();
    await page.locator("#graph canvas").first().waitFor();
    // The words-only space says how to install a sentence model.
    await page.locator(".space[data-space='hash-ngram:v1:512'] code", {
      hasText: "homeagent memory model install",
    }).waitFor();
    // Each missing layer says so, with how to enable it.
    await page.locator(".space li[data-layer='model'][data-state='not_configured']", {
      hasText: "homeagent memory model install",
    }).waitFor();
    await page.locator(".space li[data-layer='word_vectors'][data-state='not_configured']", {
      hasText: "core.agent.embedding_model_path",
    }).waitFor();
    await page.locator(".node-list button", { hasText: "Alice" }).click();
    await page.locator("#entity blockquote", { hasText: "moved to Paris" }).waitFor();
    await shot("04-memory-graph");

    // A setting refused by the registry shows its validation error; a valid one saves.
    await page.locator("#tab-settings").click();
    await page.locator("#settings-filter").fill("max_tool_turns");
    const row = page.locator(".setting[data-key='core.agent.max_tool_turns']");
    await row.locator("input").fill("0");
    await row.locator("button[type=submit]").click();
    const error = row.locator(".validation");
    await error.waitFor();
    assert.equal(await error.innerText(), "Enter a whole number from 1 to 100.");
    assert.equal(served.kernel.config.registry.get("core.agent.max_tool_turns"), 10);
    await page.locator("#lang").click(); // the Chinese UI, with CJK fonts
    await page.locator("#tab-settings", { hasText: "设置" }).waitFor();
    await row.locator("button[type=submit]").click();
    await row.locator(".validation", { hasText: "请输入 1 到 100 之间的整数。" }).waitFor();
    await shot("05-settings-invalid-zh");
    // What only the registry knows is refused with its own reason.
    const order = page.locator(".setting[data-key='core.llm.order']");
    await page.locator("#settings-filter").fill("core.llm.order");
    await order.locator("input").fill("fake, not a name!");
    await order.locator("button[type=submit]").click();
    assert.match(await order.locator(".validation").innerText(), /Cannot set "core.llm.order"/);
    await page.locator("#settings-filter").fill("max_tool_turns");
    await row.locator("input").fill("12");
    await row.locator("button[type=submit]").click();
    await row.locator(".ok").waitFor();
    assert.equal(served.kernel.config.registry.get("core.agent.max_tool_turns"), 12);

    // The skills panel lists what <home>/skills holds (here the served app's fixed list).
    await page.locator("#tab-skills").click();
    await page.locator(".skills tr", { hasText: "tea" }).waitFor();
    assert.match(await page.locator(".skills").innerText(), /npm:tea-skill@1\.0\.0/);
    await shot("06-skills-zh");
  },
);
