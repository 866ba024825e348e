/**
 * Installing a plugin from the page of a real daemon in chromium: the package's permissions are
 * shown before anything is installed, and it installs only on confirm; each plugin then shows
 * what it is for, its tools and permissions; built-ins offer no Uninstall (nor Disable unless the
 * owner may turn them off), an installed one uninstalls.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildHmap } from "../../plugins/mod.ts";
import { ARTIFACTS, launchChromium } from "./_browser.ts";
import { type PluginDaemon, startPluginDaemon } from "../plugins/builtin/_daemon.ts";

const LUADEMO = new URL("../fixtures/plugins/luademo/", import.meta.url);

/** Whether the daemon lists plugin `name`. */
async function listed(d: PluginDaemon, name: string): Promise<boolean> {
  const { body } = await d.api("/api/v1/plugins");
  return (body.plugins as { name: string }[]).some((p) => p.name === name);
}

Deno.test({
  name:
    "Web plugin install on a real daemon: permissions shown before confirming, then the plugin with its face; built-ins not removable",
  sanitizeResources: false, // chromium's pipes belong to playwright's own lifecycle
  sanitizeOps: false,
  async fn() {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await using d = await startPluginDaemon();
    const file = join(d.home, "luademo.hmap");
    await Deno.writeFile(
      file,
      await buildHmap({
        "plugin.json": await Deno.readTextFile(new URL("plugin.json", LUADEMO)),
        "main.lua": await Deno.readTextFile(new URL("main.lua", LUADEMO)),
      }),
    );
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      await page.goto(d.daemon.url);
      await page.locator("#tab-plugins").click();
      const builtin = page.locator("tr[data-plugin-row=healthcheck]");
      await builtin.locator(".about", { hasText: "health" }).waitFor();
      assert.equal(await builtin.locator("button").count(), 0, "a built-in offers no button");
      const optional = page.locator("tr[data-plugin-row=cmd]");
      assert.equal(await optional.locator("button", { hasText: "Uninstall" }).count(), 0);

      await page.locator("#plugin-file").setInputFiles(file);
      const review = page.locator("#plugin-review");
      await review.locator("h3", { hasText: "luademo" }).waitFor();
      assert.match(await review.locator("[data-permission=net]").innerText(), /127\.0\.0\.1/);
      assert.match(await review.innerText(), /Lua sandbox/);
      assert.equal(await listed(d, "luademo"), false, "nothing installed before confirming");
      await page.screenshot({ path: `${ARTIFACTS}plugins-install-review.png`, fullPage: true });
      await review.locator("#review-install").click();
      const row = page.locator("tr[data-plugin-row=luademo]");
      await row.locator(".tag.state-running").waitFor();
      await review.waitFor({ state: "detached" });
      assert.match(await row.locator(".about").innerText(), /Example Lua plugin/);
      await row.locator("summary").click();
      assert.match(await row.locator("[data-permission=net]").innerText(), /127\.0\.0\.1/);
      await page.screenshot({ path: `${ARTIFACTS}plugins-installed.png`, fullPage: true });

      page.once("dialog", (dialog) => void dialog.accept());
      await row.locator("button", { hasText: "Uninstall" }).click();
      await row.waitFor({ state: "detached" });
      assert.equal(await listed(d, "luademo"), false, "uninstalled");
    } finally {
      await browser.close();
    }
  },
});
