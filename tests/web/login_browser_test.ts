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
