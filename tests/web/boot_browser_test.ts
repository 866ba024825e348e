/**
 * The logged-in page's first frame in chromium: the chat draws the newest history from the
 * boot block the server wrote into the page (web/_boot.ts), with no API call but the event
 * stream, and text in the history that tries to end the block stays text.
 */
import assert from "node:assert/strict";
import { TOKEN } from "./_deps.ts";
import { browserTest } from "./_browser.ts";

/** Inputs and replies that would end the block or run script if written into it raw. */
const HOSTILE = [
  "</script><script>globalThis.pwned = 1</script>",
  "<!--<script>globalThis.pwned = 2",
  "</SCRIPT ><img src=x onerror=globalThis.pwned=3>",
  "line\u2028separator & ]]> $' $& done",
];

browserTest(
  "Boot: the chat's first frame shows history from the page itself, no API call; hostile text stays text",
  async (browser, served) => {
    const at = Date.parse("2026-03-02T09:15:00Z");
    for (const [i, text] of HOSTILE.entries()) {
      await served.log.append({
        turnId: `h${i}`,
        source: "web",
        channel: "web",
        input: text,
        reply: `reply ${i}: ${text}`,
        inputAt: at + i * 1000,
        replyAt: at + i * 1000 + 500,
      });
    }
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const api: string[] = [];
    page.on("request", (r) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith("/api/")) api.push(url.pathname + url.search);
    });
    await page.goto(`${served.base}/?token=${TOKEN}`);
    // Drawn in the same frame as the chat: by data-ready every turn is on the page.
    await page.locator("body[data-ready='1']").waitFor();
    const shown = await page.locator("#log .msg .text").allInnerTexts();
    for (const text of HOSTILE) {
      assert.ok(shown.includes(text.replace("\u2028", "\n")) || shown.includes(text), text);
    }
    await page.locator("body[data-sse=open]").waitFor();
    assert.equal(await page.evaluate(() => (globalThis as { pwned?: number }).pwned), undefined);
    assert.equal(await page.locator("script").count(), 3); // the address, the block, the page's own
    assert.equal(await page.locator("img").count(), 0);
    // The stream starts from the id the block was read at; nothing else was asked.
    assert.deepEqual(api, ["/api/v1/chat/events?lastEventId=0"]);
    // Opened again in the same context (the cookie): the same, from the page itself.
    api.length = 0;
    await page.reload();
    await page.locator("body[data-sse=open]").waitFor();
    assert.equal(await page.locator("#log .msg.user").count(), HOSTILE.length);
    assert.deepEqual(api, ["/api/v1/chat/events?lastEventId=0"]);
    assert.deepEqual(errors, []);
    await context.close();
  },
);

browserTest(
  "Boot: the stream replayed from the block's id does not add to a reply the block already shows whole",
  async (browser, served) => {
    const at = Date.parse("2026-03-02T09:15:00Z");
    await served.log.append({
      turnId: "race1",
      source: "web",
      channel: "web",
      input: "tea?",
      reply: "green, 80 °C",
      inputAt: at,
      replyAt: at + 500,
      tools: [{ name: "memory_recall", ok: true }],
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    // The turn's last events reach the hub after the page was read, before its stream connects:
    // the stream replays them.
    await page.route("**/api/v1/chat/events*", async (route) => {
      const events = served.kernel.agent.events;
      const call = { id: "c1", name: "memory_recall", arguments: "{}" };
      events.publish({ type: "reasoning_delta", turnId: "race1", text: "thinking it over" });
      events.publish({ type: "tool_call", turnId: "race1", call, phase: "start" });
      events.publish({ type: "tool_call", turnId: "race1", call, phase: "end", ok: true });
      events.publish({ type: "content_delta", turnId: "race1", text: "green, 80 °C" });
      events.publish({
        type: "output",
        turnId: "race1",
        channel: "web",
        text: "green, 80 °C",
        status: "ok",
      });
      await route.continue();
    });
    await page.goto(`${served.base}/?token=${TOKEN}`);
    await page.locator("body[data-sse=open]").waitFor();
    // The stream is in order: once a later input shows, the replay before it was applied.
    served.kernel.agent.events.publish({
      type: "input",
      turnId: "later",
      source: "cli",
      channel: "cli",
      text: "after the replay",
      level: 0,
      receivedAt: Date.now(),
    });
    await page.locator(".msg .text", { hasText: "after the replay" }).waitFor();
    const replies = await page.locator(".msg.agent.done .text").allInnerTexts();
    assert.deepEqual(replies, ["green, 80 °C"]);
    assert.deepEqual(await page.locator(".msg.agent .tools summary").allInnerTexts(), [
      "Tool calls (1)",
    ]);
    assert.equal(await page.locator(".msg.agent .reasoning").count(), 0);
    await context.close();
  },
);
