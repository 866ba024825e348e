/**
 * The page's figures: what its bundles weigh, and its time to interactive in headless chromium
 * beside the same measurement of a blank page (what the harness and this machine cost alone).
 */
import { gzipSync } from "node:zlib";
import { createApp } from "../../web/mod.ts";
import { WEB_BUNDLES } from "../../web/build.ts";
import { systemClock } from "../../adapters/mod.ts";
import { fakeWeb, TOKEN } from "../web/_deps.ts";
import { launchChromium } from "../web/_browser.ts";
import { type Figure, quantile, round } from "./_figure.ts";

const DIST = new URL("../../web/ui/dist/", import.meta.url);
/** What the first load fetches (graph.js waits until a graph is shown). */
const FIRST_LOAD = ["dist/app.js", "dist/markdown.js", "app.css"];

async function gzipKb(paths: string[], base: URL): Promise<number> {
  let bytes = 0;
  for (const path of paths) bytes += gzipSync(await Deno.readFile(new URL(path, base))).length;
  return round(bytes / 1024, 1);
}

/** Every bundle the page can load (web/build.ts), and the part the first load fetches. */
async function bundleFigures(): Promise<Record<string, Figure>> {
  const names = Object.values(WEB_BUNDLES);
  let raw = 0;
  for (const name of names) raw += (await Deno.stat(new URL(name, DIST))).size;
  return {
    web_bundle_kb: { value: round(raw / 1024, 1), unit: `KiB (${names.join(" + ")})` },
    web_bundle_gzip_kb: { value: await gzipKb(names, DIST), unit: "KiB gzipped, all bundles" },
    web_first_load_gzip_kb: {
      value: await gzipKb(FIRST_LOAD, new URL("../../web/ui/", import.meta.url)),
      unit: "KiB gzipped (app.js, markdown.js, app.css)",
    },
  };
}

/**
 * Navigation start → the chat view rendered with its input focusable, median of 5 after one
 * warm-up, each in a fresh browser context (cold cache), with `handler` serving.
 */
async function timeToInteractive(handler: Deno.ServeHandler): Promise<number> {
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
      await context.close();
    }
  } finally {
    await browser.close();
    await server.shutdown();
  }
  return round(quantile(samples, 0.5), 0);
}

/** The page logged in through `/?token=` (cookie, redirect) over the app's real routes. */
async function ttiFigure(): Promise<Figure> {
  const app = createApp({ ...fakeWeb().deps, clock: systemClock });
  return { value: await timeToInteractive(app.fetch), unit: "ms (median of 5)" };
}

/** The same steps over a page that is only the elements waited for: the harness's own cost. */
async function blankFigure(): Promise<Figure> {
  const blank = '<!doctype html><body data-ready="1"><a id="tab-chat" class="on">chat</a>' +
    "<textarea id=text></textarea></body>";
  const handler = (request: Request) =>
    new URL(request.url).search === ""
      ? new Response(blank, { headers: { "content-type": "text/html" } })
      : Response.redirect(new URL("/", request.url), 302);
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
