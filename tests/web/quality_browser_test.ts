/**
 * The quality bar of the page in Debian's chromium, on every panel, in both languages, at
 * desktop and phone width: an axe-core scan with no serious or critical violation, no console
 * error, no sideways scroll at 390 px, and a screenshot of each in tests/artifacts/web/. Also the
 * icon and manifest, the message box anchored at the bottom, and dark mode following the system.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { TOKEN } from "./_deps.ts";
import { ARTIFACTS, browserTest, type ServedApp } from "./_browser.ts";

const AXE = await Deno.readTextFile(
  new URL("../../node_modules/axe-core/axe.min.js", import.meta.url),
);

/** Each panel by its address, and what shows once its data is in. */
const PANELS: [name: string, hash: string, ready: string][] = [
  ["chat", "#chat", ".msg.agent.done"],
  ["memory-graph", "#memory", "#graph canvas"],
  ["memory-documents", "#memory/documents", ".docs li, section.memory p.empty"],
  ["memory-context", "#memory/context", ".talk li, section.memory p.empty"],
  ["knowledge", "#knowledge", ".knowledge li"],
  ["plugins", "#plugins", ".plugins td"],
  ["skills", "#skills", ".skills td"],
  ["llm", "#llm", ".llm td"],
  ["agents", "#agents", ".agents"],
  ["settings-llm", "#settings/llm", ".setting"],
  ["settings-memory", "#settings/memory", ".setting"],
  ["settings-advanced", "#settings/advanced", ".setting"],
  ["setup", "#setup", "#setup-catalogue"],
];

const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

interface AxeResult {
  violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
}

/** Serious and critical violations on the page as it is now, in words. */
async function axeProblems(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run()
  ) as AxeResult;
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target).join(", ")}`);
}

async function seed(served: ServedApp): Promise<void> {
  await served.graph.commit([{
    subject: "Alice",
    predicate: "lives_in",
    object: "Paris",
    sentence: "Alice moved to Paris last spring.",
  }]);
  const at = Date.now() - 3_600_000;
  await served.log.append({
    turnId: "seed1",
    source: "cli",
    channel: "cli",
    input: "Where does Alice live?",
    reply: "Alice lives in **Paris** since last spring.",
    inputAt: at,
    replyAt: at + 2000,
    tools: [{ name: "memory_recall", ok: true }],
  });
}

browserTest(
  "Every panel in chromium: axe-core finds nothing serious, no console error, no sideways scroll, screenshots",
  async (browser, served) => {
    await seed(served);
    const problems: string[] = [];
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      for (const lang of ["en", "zh"] as const) {
        const context = await browser.newContext({
          viewport,
          locale: lang === "zh" ? "zh-CN" : "en-US",
        });
        const page = await context.newPage();
        page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
        page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
        page.on("response", (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
        await page.goto(`${served.base}/?token=${TOKEN}`);
        await page.locator("body[data-sse=open]").waitFor();
        for (const [name, hash, ready] of PANELS) {
          await page.evaluate((h) => location.hash = h, hash);
          await page.locator(ready).first().waitFor();
          const where = `${name} ${lang} ${size}`;
          for (const p of await axeProblems(page)) problems.push(`${where}: ${p}`);
          const wide = await page.evaluate<number>(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth",
          );
          if (wide > 0) problems.push(`${where}: scrolls sideways by ${wide} px`);
          await page.screenshot({ path: `${ARTIFACTS}${name}-${lang}-${size}.png` });
        }
        await context.close();
      }
    }
    assert.deepEqual(problems, []);
  },
);

browserTest(
  "Page basics in chromium: icon and manifest, the message box at the bottom, dark mode from the system, an empty graph explained",
  async (browser, served) => {
    const context = await browser.newContext({ viewport: VIEWPORTS.phone, colorScheme: "dark" });
    const page = await context.newPage();
    const failed: string[] = [];
    page.on("response", (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
    // A new home's graph is not a blank box: it says what will fill it.
    await page.goto(`${served.base}/?token=${TOKEN}#memory`);
    await page.locator("#graph-empty h3", { hasText: "Nothing remembered yet" }).waitFor();
    assert.equal(await page.locator("#graph").isVisible(), false);
    await page.screenshot({ path: `${ARTIFACTS}memory-graph-empty-dark-phone.png` });
    await seed(served);
    await page.locator("#graph-q").fill("nobody");
    await page.keyboard.press("Enter");
    await page.locator("#graph-empty", { hasText: "No entity matches" }).waitFor();
    // A knowledge entry edits with its preview beside it, and the edit is saved.
    await page.goto(`${served.base}/#knowledge`);
    await page.locator(".tree button", { hasText: "tea" }).click();
    await page.locator("#knowledge-edit").click();
    await page.locator("#knowledge-text").fill("# Green tea\n\n75 °C, **three** minutes.");
    await page.locator(".entry .editor .preview strong", { hasText: "three" }).waitFor();
    await page.locator(".entry .editor button[type=submit]").click();
    await page.locator(".entry .markdown strong", { hasText: "three" }).waitFor();
    assert.equal(
      (await (await page.request.get(`${served.base}/api/v1/knowledge/recipes/tea`)).json()).entry
        .content,
      "# Green tea\n\n75 °C, **three** minutes.",
    );
    await page.goto(`${served.base}/#chat`);
    await page.locator(".msg.agent.done").waitFor();
    const links = {
      icon: await page.locator("link[rel=icon]").evaluate((l) => (l as { href: string }).href),
      manifest: await page.locator("link[rel=manifest]").evaluate((l) =>
        (l as { href: string }).href
      ),
    };
    for (const url of [links.icon!, links.manifest!, `${served.base}/favicon.ico`]) {
      const response = await page.request.get(url);
      assert.equal(response.status(), 200, url);
    }
    const manifest = await (await page.request.get(links.manifest!)).json();
    assert.equal(manifest.name, "HomeAgent");
    // The box sits at the bottom of the screen, however short the conversation.
    const box = await page.locator("form.composer").boundingBox();
    assert.ok(
      box && Math.abs(box.y + box.height - VIEWPORTS.phone.height) <= 1,
      `box at ${box?.y}`,
    );
    const bodyColour = "getComputedStyle(document.body).backgroundColor";
    const background = await page.evaluate<string>(bodyColour);
    assert.equal(background, "rgb(21, 23, 26)", "dark background");
    assert.deepEqual(await axeProblems(page), []);
    await page.screenshot({ path: `${ARTIFACTS}chat-dark-phone.png` });
    await page.emulateMedia({ colorScheme: "light" });
    assert.equal(await page.evaluate<string>(bodyColour), "rgb(255, 255, 255)");
    assert.deepEqual(failed, []);
    await context.close();
  },
);
