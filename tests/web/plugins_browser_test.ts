/** The plugin list of a real daemon in chromium: each built-in with its tools; live terminals. */
import assert from "node:assert/strict";
import { ARTIFACTS, launchChromium } from "./_browser.ts";
import { startPluginDaemon } from "../plugins/builtin/_daemon.ts";

Deno.test({
  name:
    "Web plugin list shows the built-ins running with their tools, and a terminal's output live",
  sanitizeResources: false, // chromium's pipes belong to playwright's own lifecycle
  sanitizeOps: false,
  async fn() {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await using d = await startPluginDaemon({ config: { "plugin.agentcli.policy": "allow" } });
    await d.toolRun([
      { name: "terminal_create", arguments: {} },
      { name: "terminal_write", arguments: { id: "t1", input: "echo browser-$((6 * 7))\n" } },
    ]);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
      await page.goto(d.daemon.url);
      await page.locator("#tab-plugins").click();
      for (
        const [plugin, tool] of [
          ["agentcli", "terminal_create"],
          ["healthcheck", "healthcheck_perf"],
          ["cfgmgr", "config_batch_set"],
        ]
      ) {
        const details = page.locator(`.plugin-details[data-plugin=${plugin}]`);
        await details.locator("summary").click();
        await details.locator("code", { hasText: tool! }).waitFor();
      }
      const text = await page.locator("section.plugins").innerText();
      assert.match(text, /agentcli[\s\S]*running/);
      await page.locator("section.terminals button", { hasText: "t1" }).click();
      await page.locator("#terminal-output", { hasText: "browser-42" }).waitFor();
      const shown = await page.locator("#terminal-output").innerText();
      assert.equal(shown.includes("\x1b"), false, "escape codes are not drawn as text");
      await page.screenshot({ path: `${ARTIFACTS}plugins-builtins.png`, fullPage: true });
    } finally {
      await browser.close();
    }
  },
});
