/**
 * The plugin list of a real daemon in chromium, for the working built-ins: each with its tools
 * and settings, the changesets (a diff, a refused and a done rollback), cmd's runs and the
 * pending timers (cancelled from the page).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ARTIFACTS, launchChromium } from "./_browser.ts";
import { startPluginDaemon } from "../plugins/builtin/_daemon.ts";

Deno.test({
  name:
    "Web plugin list shows files, cmd, timer and changes: a changeset rolled back, runs, timers",
  sanitizeResources: false, // chromium's pipes belong to playwright's own lifecycle
  sanitizeOps: false,
  async fn() {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await using d = await startPluginDaemon({ config: { "plugin.cmd.policy": "allow" } });
    const note = join(d.home, "agentfs", "note.txt");
    await d.toolRun([
      { name: "files_write", arguments: { path: "note.txt", content: "first\n" } },
      { name: "cmd_run", arguments: { command: "echo ran-$((6 * 7)) && echo more >> note.txt" } },
      { name: "timer_set", arguments: { duration: "3h", message: "stretch" } },
    ]);
    assert.equal(await Deno.readTextFile(note), "first\nmore\n");
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
      await page.goto(d.daemon.url);
      await page.locator("#tab-plugins").click();
      for (
        const [plugin, tool, setting] of [
          ["files", "files_edit", "roots"],
          ["cmd", "cmd_run", 'policy = "allow"'],
          ["timer", "timer_cancel", "max_timers = 100"],
          ["changes", "changes_show", "keep = 200"],
        ]
      ) {
        const details = page.locator(`.plugin-details[data-plugin=${plugin}]`);
        await details.locator("summary").click();
        await details.locator("code", { hasText: tool! }).waitFor();
        assert.match(await details.locator(".plugin-settings").innerText(), new RegExp(setting!));
      }

      // One turn, one changeset: files_write and what cmd_run appended.
      const changes = page.locator("section.work.changes");
      const row = changes.locator("li[data-changeset]");
      await row.first().waitFor();
      assert.equal(await row.count(), 1);
      assert.match(await row.innerText(), /\[files_write, cmd_run\] created .*note\.txt/);
      await row.locator("button").click();
      const diff = page.locator("#changeset-diff");
      await diff.waitFor();
      assert.match(await diff.innerText(), /\+first\n\+more/);

      // Changed by hand since: the page shows the refusal, and the file is left alone.
      await Deno.writeTextFile(note, "mine now\n");
      await changes.locator("button", { hasText: "Roll back" }).click();
      await changes.locator(".said", { hasText: "changed since" }).waitFor();
      assert.equal(await Deno.readTextFile(note), "mine now\n");
      await Deno.writeTextFile(note, "first\nmore\n");
      await changes.locator("button", { hasText: "Roll back" }).click();
      await changes.locator(".said", { hasText: "Rolled back" }).waitFor();
      await assert.rejects(Deno.stat(note), Deno.errors.NotFound);
      await changes.locator("li[data-changeset]", { hasText: "rollback of" }).waitFor();

      const runs = page.locator("section.work.cmd-history details");
      assert.equal(await runs.count(), 1);
      await runs.locator("summary").click();
      assert.match(await runs.innerText(), /echo ran-.*exited \(0\)[\s\S]*ran-42/);

      const timers = page.locator("section.work.timers li[data-timer]");
      assert.match(await timers.innerText(), /stretch/);
      await page.screenshot({ path: `${ARTIFACTS}plugins-work.png`, fullPage: true });
      await timers.locator("button").click();
      await page.locator("section.work.timers .hint").waitFor();
      const left = await d.api("/api/v1/plugins/timer/timers");
      assert.deepEqual(left.body.timers, []);
    } finally {
      await browser.close();
    }
  },
});
