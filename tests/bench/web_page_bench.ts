/**
 * The page's figures: what its bundles weigh, and its time to interactive in headless chromium
 * beside the same measurement of a blank page (what the harness and this machine cost alone).
 */
import { gzipSync } from "node:zlib";
import { createApp } from "../../web/mod.ts";
import { BUNDLES } from "../../web/ui/dist/bundles.js";
import { systemClock } from "../../adapters/mod.ts";
import { fakeWeb, TOKEN } from "../web/_deps.ts";
import { launchChromium } from "../web/_browser.ts";
import type { Page } from "playwright-core";
import { type Figure, quantile, round } from "./_figure.ts";

const UI = new URL("../../web/ui/", import.meta.url);

/**
 * What the first load fetches: the page itself, with its script (the shell and the chat) and its
 * stylesheet written in (the boot block of a logged-in page comes on top, as long as its
 * history), and markdown.js (asked for once the chat is up). The other views' bundle waits until
 * a view is opened, graph.js until a graph is shown.
 */
const FIRST_LOAD = ["dist/index.html", "dist/markdown.js"];

async function gzipKb(paths: string[], base: URL): Promise<number> {
  let bytes = 0;
  for (const path of paths) bytes += gzipSync(await Deno.readFile(new URL(path, base))).length;
  return round(bytes / 1024, 1);
}

/** Every file the page can load (web/build.ts): the page and its later bundles. */
async function bundleFigures(): Promise<Record<string, Figure>> {
  const names = ["index.html", ...Object.keys(BUNDLES)].map((name) => `dist/${name}`);
  let raw = 0;
  for (const name of names) raw += (await Deno.stat(new URL(name, UI))).size;
  return {
    web_bundle_kb: {
      value: round(raw / 1024, 1),
      unit: `KiB (the page and ${names.length - 1} bundles)`,
    },
    web_bundle_gzip_kb: { value: await gzipKb(names, UI), unit: "KiB gzipped, all of them" },
    web_first_load_gzip_kb: {
      value: await gzipKb(FIRST_LOAD, UI),
      unit: `KiB gzipped (${FIRST_LOAD.map((f) => f.replace(/^dist\//, "")).join(", ")})`,
    },
  };
}

/**
 * Navigation start → the chat view rendered with its input focusable, median of 5 after one
 * warm-up, each in a fresh browser context (cold cache), with `handler` serving. `usable`, when
 * given, runs right at that moment, untimed, and must prove the input works.
 */
async function timeToInteractive(
  handler: Deno.ServeHandler,
  usable?: (page: Page) => Promise<void>,
): Promise<number> {
  const browser = await launchChromium(); // first: when chromium is missing nothing is left serving
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const samples: number[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const started = performance.now();
      // Interactive, not loaded: the load event also waits for images and later bundles.
      await page.goto(`http://127.0.0.1:${server.addr.port}/?token=${TOKEN}`, {
        waitUntil: "commit",
      });
      await page.locator("body[data-ready='1'] #tab-chat.on").waitFor();
      await page.locator("#text").focus();
      if (i > 0) samples.push(performance.now() - started); // the first warms chromium up
      await usable?.(page);
      await context.close();
    }
  } finally {
    await browser.close();
    await server.shutdown();
  }
  return round(quantile(samples, 0.5), 0);
}

/** The page logged in through `/?token=` (the page with its cookie) over the app's real routes. */
async function ttiFigure(): Promise<Figure> {
  const app = createApp({ ...fakeWeb().deps, clock: systemClock });
  return { value: await timeToInteractive(app.fetch, typeAndSend), unit: "ms (median of 5)" };
}

/** Typing into the focused input and Enter sends the message: the page was really usable. */
async function typeAndSend(page: Page): Promise<void> {
  const sent = page.waitForRequest((r) =>
    r.method() === "POST" && r.url().endsWith("/api/v1/chat")
  );
  await page.keyboard.type("hello");
  await page.keyboard.press("Enter");
  if ((await sent).postDataJSON()?.text !== "hello") throw new Error("the chat did not send");
}

/**
 * The same steps over a page that is only the elements waited for, answering the login link in
 * place as the daemon does: the harness's own cost.
 */
async function blankFigure(): Promise<Figure> {
  const blank = '<!doctype html><body data-ready="1"><a id="tab-chat" class="on">chat</a>' +
    "<textarea id=text></textarea></body>";
  const handler = () => new Response(blank, { headers: { "content-type": "text/html" } });
  return { value: await timeToInteractive(handler), unit: "ms (median of 5, a blank page)" };
}

/** The figures of this module. */
export const figures = {
  "web_bundle_kb": bundleFigures,
  "web_bundle_gzip_kb": bundleFigures,
  "web_first_load_gzip_kb": bundleFigures,
  "web_tti_ms": ttiFigure,
  "web_tti_blank_ms": blankFigure,
};
