/**
 * The memory view of a real daemon in chromium (a temp home, a scripted fake LLM): filter the
 * graph by entity type and by day, click a fact to see every version with its validity, close
 * it, undo, and see it open again; a document and the context window read as conversations.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ARTIFACTS, launchChromium } from "./_browser.ts";
import { startPluginDaemon } from "../plugins/builtin/_daemon.ts";
import { runMain } from "../fakes/daemon.ts";

const JAN_2025 = Date.UTC(2025, 0, 1), JUL_2025 = Date.UTC(2025, 6, 1);

/** Ann lived in Oslo, lives in Bergen since July 2025, has a dog; one archived conversation. */
async function importMemory(home: string): Promise<void> {
  const lines = [
    { type: "homeagent-memory", version: 1 },
    {
      type: "fact",
      subject: "Ann",
      subject_type: "person",
      predicate: "lives_in",
      object: "Oslo",
      object_type: "place",
      valid_from: JAN_2025,
      valid_to: JUL_2025,
    },
    {
      type: "fact",
      subject: "Ann",
      subject_type: "person",
      predicate: "lives_in",
      object: "Bergen",
      object_type: "place",
      valid_from: JUL_2025,
    },
    {
      type: "fact",
      subject: "Ann",
      predicate: "has_pet",
      object: "Rex",
      object_type: "animal",
      valid_from: JAN_2025,
    },
    {
      type: "document",
      summary: "Where the umbrella is",
      content: "[2025-03-02 09:30] web: Where did I leave my umbrella?\n" +
        "[2025-03-02 09:31] you: In the hall,\nbeside the door.",
      source: "archive",
      created_at: Date.UTC(2025, 2, 2, 9, 31),
    },
  ];
  const file = join(home, "seed.jsonl");
  await Deno.writeTextFile(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const result = await runMain(["memory", "import", "--home", home, file]);
  assert.equal(result.code, 0, result.stderr);
}

Deno.test({
  name:
    "Web memory view on a real daemon: filter by type and day, a fact's history, close and undo, conversations",
  sanitizeResources: false, // chromium's pipes belong to playwright's own lifecycle
  sanitizeOps: false,
  async fn() {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await using d = await startPluginDaemon();
    await importMemory(d.home);
    await d.toolRun([]); // one turn in the context window: "go", then "done"
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      await page.goto(d.daemon.url);
      await page.locator("#tab-memory").click();
      const graph = page.locator("#graph");
      await page.locator("#graph[data-edges*='Ann|lives_in|Bergen']").waitFor();
      assert.doesNotMatch(await graph.getAttribute("data-edges") ?? "", /Oslo/, "now: open facts");

      // By entity type: animals only.
      await page.locator("#graph-type").selectOption("animal");
      await page.locator("#graph[data-edges='Ann|has_pet|Rex']").waitFor();
      await page.locator("#graph-type").selectOption("");
      // True on a day: in March 2025 Ann lived in Oslo.
      await page.locator("#graph-when").selectOption("at");
      await page.locator("#graph-day").fill("2025-03-01");
      await page.locator("#graph[data-edges*='Ann|lives_in|Oslo']").waitFor();
      assert.doesNotMatch(await graph.getAttribute("data-edges") ?? "", /Bergen/);
      await page.locator("#graph-when").selectOption("now");
      await page.locator("#graph[data-edges*='Ann|lives_in|Bergen']").waitFor();

      // The search finds an entity and its neighbours; with a type filter, facts of that type.
      await page.locator("#graph-q").fill("Rex");
      await page.keyboard.press("Enter");
      await page.locator("#graph[data-nodes^='Rex'][data-edges*='Ann|has_pet|Rex']").waitFor();
      await page.locator("#graph-q").fill("Ann");
      await page.locator("#graph-type").selectOption("animal");
      await page.locator("#graph[data-edges='Ann|has_pet|Rex']").waitFor();
      await page.locator("#graph-type").selectOption("");
      await page.locator("#graph-q").fill("");
      await page.keyboard.press("Enter");
      await page.locator("#graph[data-edges*='Ann|lives_in|Bergen']").waitFor();

      // A fact's history: both homes with their validity.
      await page.locator(".node-list button", { hasText: "Ann" }).click();
      const bergen = page.locator("#entity li.fact", { hasText: "Bergen" }).first();
      await bergen.locator("button.fact-text").click();
      const versions = bergen.locator("ol.versions li");
      await versions.nth(1).waitFor();
      assert.deepEqual(
        await versions.evaluateAll((lis) => lis.map((li) => li.getAttribute("data-state"))),
        ["closed", "open"],
      );
      assert.match(await versions.nth(0).innerText(), /Oslo[\s\S]*2025/);
      await page.screenshot({ path: `${ARTIFACTS}memory-fact-history.png`, fullPage: true });

      // Close it, see it closed, undo, see it open again — in the page and in the graph.
      await bergen.locator("button", { hasText: "No longer true" }).click();
      await page.locator("#entity li.fact[data-state=closed]", { hasText: "Bergen" }).waitFor();
      await page.locator("#undo-toast", { hasText: "Fact closed." }).waitFor();
      await page.screenshot({ path: `${ARTIFACTS}memory-fact-undo.png` });
      await page.locator("#undo").click();
      await page.locator("#entity li.fact[data-state=open]", { hasText: "Bergen" }).waitFor();
      await page.locator("#undo-toast").waitFor({ state: "detached" });
      const id = await page.locator("#entity li.fact[data-state=open]", { hasText: "Bergen" })
        .getAttribute("data-relation");
      const { body } = await d.api(`/api/v1/memory/relations/${id}/versions`);
      const versionsNow = body.versions as { target: string; validTo?: number }[];
      assert.deepEqual(versionsNow.map((v) => [v.target, v.validTo]), [
        ["Oslo", JUL_2025],
        ["Bergen", undefined],
      ]);

      // The same in Chinese.
      await page.locator("#lang").click();
      await page.locator("#entity li.fact[data-state=open] button", { hasText: "已不成立" })
        .first().waitFor();
      await page.locator("#memory-documents", { hasText: "文档" }).waitFor();
      await page.locator("#lang").click();

      // The archived document and the context window read as conversations.
      await page.locator("#memory-documents").click();
      await page.locator(".docs button", { hasText: "Where the umbrella is" }).click();
      const talk = page.locator(".docs ol.talk");
      await talk.locator("li.turn.owner", { hasText: "umbrella" }).waitFor();
      assert.match(
        await talk.locator("li.turn.agent").innerText(),
        /In the hall,\s+beside the door/,
      );
      await talk.locator("li.turn.owner time").first().waitFor();
      await page.locator("#memory-context").click();
      await page.locator("ol.talk li.turn.owner", { hasText: "go" }).waitFor();
      await page.locator("ol.talk li.turn.agent", { hasText: "done" }).waitFor();
      await page.screenshot({ path: `${ARTIFACTS}memory-context-talk.png`, fullPage: true });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  },
});
