/**
 * The login page in Debian's chromium: a failed login link and a throttle are explained in
 * words (English and Chinese), commands are shown as code, never as backticks or raw JSON.
 */
import assert from "node:assert/strict";
import { TOKEN } from "./_deps.ts";
import { ARTIFACTS, browserTest } from "./_browser.ts";

browserTest(
  "Login page in chromium: a wrong link and a throttle in words, commands as code",
  async (browser, served) => {
    const page = await browser.newPage({ locale: "en-US" });
    await page.goto(`${served.base}/?token=stale-token`);
    const notice = page.locator("#login .error[data-notice=link_wrong]");
    await notice.waitFor();
    assert.match(await notice.innerText(), /not this daemon's token/);
    assert.equal(new URL(page.url()).search, "", "the bad token left the address bar");
    const hint = page.locator("#login .hint");
    assert.equal(await hint.locator("code").count(), 1);
    assert.doesNotMatch(await hint.innerText(), /`/);

    for (let i = 0; i < 5; i++) {
      await page.locator("#token").fill(`wrong-${i}`);
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/login")),
        page.locator("#login button[type=submit]").click(),
      ]);
    }
    const throttled = page.locator("#login .error[data-notice=throttled]");
    await throttled.waitFor();
    const words = await throttled.innerText();
    assert.match(words, /refused for 10 minutes more/);
    assert.match(words, /right token still works/);
    assert.doesNotMatch(words, /[{}`]|too_many_attempts/);
    assert.equal(await throttled.locator("code").count(), 1);
    await page.screenshot({ path: `${ARTIFACTS}login-throttled-en.png` });

    await page.locator("#lang").click();
    const zh = await page.locator("#login .error[data-notice=throttled]").innerText();
    assert.match(zh, /10 分钟/);
    assert.match(zh, /正确的令牌仍然有效/);
    await page.screenshot({ path: `${ARTIFACTS}login-throttled-zh.png` });

    // The right token still logs in from the throttled browser.
    await page.locator("#token").fill(TOKEN);
    await page.locator("#login button[type=submit]").click();
    await page.locator("#tab-chat.on").waitFor();
  },
);

browserTest(
  "Login link in chromium: the chat at once, no token in the address or the history; a reload stays in",
  async (browser, served) => {
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    const seen: string[] = [];
    page.on("request", (r) => seen.push(r.url()));
    const before = await page.evaluate("history.length");
    await page.goto(`${served.base}/?token=${TOKEN}#memory`);
    await page.locator("body[data-ready='1'] #tab-memory.on").waitFor();
    assert.equal(
      page.url(),
      `${served.base}/#memory`,
      "the token left the address, the view stayed",
    );
    assert.equal(
      await page.evaluate("history.length"),
      (before as number) + 1,
      "one history entry more, and it has no token",
    );
    const after = seen.slice(1);
    assert.ok(
      after.length > 0 && after.every((url) => !url.includes(TOKEN)),
      "no later request names it",
    );
    await page.reload();
    await page.locator("body[data-ready='1'] #tab-memory.on").waitFor();
    await page.locator("#tab-chat").click();
    await page.locator("#text").fill("hello after a reload");
    await page.locator("#text").press("Enter");
    await page.locator(".msg.user", { hasText: "hello after a reload" }).waitFor();
    await context.close();
  },
);
