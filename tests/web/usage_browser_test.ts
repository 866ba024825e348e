/** The LLM panel of a real daemon in chromium: the last 30 days of tokens as bars, by cause. */
import assert from "node:assert/strict";
import { ARTIFACTS, launchChromium } from "./_browser.ts";
import { reply } from "../fixtures/fake_llm.ts";
import { startPluginDaemon } from "../plugins/builtin/_daemon.ts";

Deno.test({
  name: "Web LLM panel charts 30 days of tokens and lists them by cause, priced",
  sanitizeResources: false, // chromium's pipes belong to playwright's own lifecycle
  sanitizeOps: false,
  async fn() {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await using d = await startPluginDaemon({
      config: { "core.llm.sources.env.price_input": "2", "core.llm.sources.env.price_output": "8" },
    });
    d.server.enqueue(reply.text("one", { usage: { prompt: 3_000, completion: 1_000 } }));
    assert.equal((await d.api("/api/v1/chat?wait=1", { text: "hello" })).body.status, "ok");
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
      await page.goto(d.daemon.url);
      await page.locator("#tab-llm").click();
      const chart = page.locator(".usage-chart");
      await chart.waitFor();
      assert.equal(await chart.locator("rect").count(), 30);
      const today = chart.locator("rect").last();
      assert.ok(Number(await today.getAttribute("height")) > 0, "today's bar has height");
      assert.match(await today.locator("title").textContent() ?? "", /: 4,000 · USD 0\.0140$/);
      assert.match(await chart.locator("figcaption").innerText(), /4,000 · USD 0\.0140/);
      const row = chart.locator(".usage-causes tr", { hasText: "web" });
      assert.match(await row.innerText(), /web\s+4,000 · USD 0\.0140\s+1/);
      await page.screenshot({ path: `${ARTIFACTS}usage-chart.png`, fullPage: true });
    } finally {
      await browser.close();
    }
  },
});
