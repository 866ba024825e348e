/**
 * The chat in Debian's chromium as a returning owner sees it: the conversation from the text
 * log across reloads and channels (terminal, timer), paged backwards, searchable; live messages
 * from other channels over SSE; keyboard use; times in the owner's locale.
 */
import assert from "node:assert/strict";
import { reply } from "../fixtures/fake_llm.ts";
import { TOKEN } from "./_deps.ts";
import { ARTIFACTS, browserTest } from "./_browser.ts";

browserTest(
  "Chat in chromium: history across reloads and channels, paging, search, live inputs, keyboard",
  async (browser, served) => {
    // 40 older turns, so the first page (30) leaves ten to page back to.
    const day = Date.parse("2026-03-02T09:15:00Z");
    for (let i = 1; i <= 40; i++) {
      await served.log.append({
        turnId: `old${i}`,
        source: i % 2 === 0 ? "cli" : "web",
        channel: i % 2 === 0 ? "cli" : "web",
        input: `old question ${i}`,
        reply: `old answer ${i}`,
        inputAt: day + i * 60_000,
        replyAt: day + i * 60_000 + 1000,
      });
    }
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      locale: "de-DE",
      timezoneId: "Europe/Berlin",
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(e.message));
    const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png` });
    await page.goto(`${served.base}/?token=${TOKEN}`);
    await page.locator("body[data-sse=open]").waitFor();

    // The newest page of the log, each message marked with its channel, times as Berlin reads them.
    const newest = page.locator(".msg.agent", { hasText: "old answer 40" });
    await newest.waitFor();
    const question = (n: number) => page.locator(".msg .text", { hasText: `old question ${n}` });
    assert.equal(await question(11).count(), 1);
    assert.equal(await question(10).count(), 0);
    const terminal = page.locator(".msg.user", { hasText: "old question 40" });
    assert.equal(await terminal.locator(".badge").innerText(), "terminal");
    const berlin = new Intl.DateTimeFormat("de-DE", {
      hour: "2-digit",
      minute: "2-digit",
      timeZone: "Europe/Berlin",
    }).format(day + 40 * 60_000);
    assert.equal(await terminal.locator("time").innerText(), berlin);

    // Older pages come when the owner scrolls up, and the log says where it begins.
    await page.locator("#log").evaluate((el) => el.scrollTop = 0);
    await page.locator(".msg .text", { hasText: /^old question 1$/ }).waitFor();
    await page.locator(".hint.start").waitFor();
    assert.equal(await question(10).count(), 1);

    // The owner types: Shift-Enter breaks the line, Enter sends; the reply streams in.
    served.llm.enqueue(reply.text("Hallo from the **agent**"));
    const box = page.locator("#text");
    await box.focus();
    await page.keyboard.type("first line");
    await page.keyboard.press("Shift+Enter");
    await page.keyboard.type("second line");
    await page.keyboard.press("Enter");
    const mine = page.locator(".msg.user", { hasText: "second line" });
    await mine.waitFor();
    assert.equal(await mine.locator(".text").innerText(), "first line\nsecond line");
    await page.locator(".msg.agent.done strong", { hasText: "agent" }).waitFor();
    assert.equal(await box.inputValue(), "");

    // Someone types in the terminal, and a timer fires: both appear live, marked.
    served.llm.enqueue(reply.text("Answer for the terminal"), reply.text("Tea time!"));
    served.kernel.agent.injectInput("cli", "typed in the terminal", { channel: "cli" });
    await page.locator(".msg.agent.done", { hasText: "Answer for the terminal" }).waitFor();
    served.kernel.agent.injectInterrupt("timer", "timer: tea", { priority: 3, channel: "web" });
    const timer = page.locator(".msg.event", { hasText: "timer: tea" });
    await timer.waitFor();
    assert.equal(await timer.locator(".badge").innerText(), "timer");
    await page.locator(".msg.agent.done", { hasText: "Tea time!" }).waitFor();
    await shot("chat-live-channels-desktop-en");

    // Esc stops a running turn from anywhere on the page.
    served.llm.enqueue(reply.slowText("word ".repeat(400), { chunkDelayMs: 40 }));
    await box.fill("a long story please");
    await page.keyboard.press("Enter");
    await page.locator(".msg.agent.live .text", { hasText: "word word" }).waitFor();
    await page.locator("#log").focus();
    await page.keyboard.press("Escape");
    await page.locator(".msg.agent.done .status").waitFor();

    // After a reload everything is still there, from every channel, in order.
    await served.kernel.agent.whenIdle();
    await page.reload();
    await page.locator(".msg.agent.done", { hasText: "Tea time!" }).waitFor();
    const order = await page.locator(".msg .text").allInnerTexts();
    const at = (text: string) => order.findIndex((t) => t.includes(text));
    assert.ok(at("old answer 40") < at("second line"));
    assert.ok(at("second line") < at("typed in the terminal"));
    assert.ok(at("typed in the terminal") < at("timer: tea"));
    assert.ok(at("timer: tea") < at("a long story please"));

    // Search finds a turn anywhere in the history.
    await page.locator("#open-search").click();
    await page.locator("#chat-search").fill("OLD QUESTION 3");
    await page.keyboard.press("Enter");
    const results = page.locator("#search-results");
    await results.locator(".msg", { hasText: "old question 3" }).first().waitFor();
    assert.deepEqual(
      (await results.locator(".msg.user .text").allInnerTexts()).sort(),
      ["old question 3", "old question 30", "old question 31", "old question 32", "old question 33"]
        .concat(["old question 34", "old question 35", "old question 36", "old question 37"])
        .concat(["old question 38", "old question 39"]).sort(),
    );
    await shot("chat-search-desktop-en");
    await context.close();
    assert.deepEqual(errors, []);
  },
);
