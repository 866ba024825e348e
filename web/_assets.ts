/**
 * The page's static files: the script bundle, the stylesheet, the icon and the web app
 * manifest. They are embedded as text so one compiled binary carries the page (rebuild the
 * bundle with `deno task build:web`), and served without a token: the login screen needs them.
 */
import type { Env, Hono } from "hono";
import APP_JS from "./ui/dist/app.js" with { type: "text" };
import APP_CSS from "./ui/app.css" with { type: "text" };
import FAVICON from "./ui/favicon.svg" with { type: "text" };
import MANIFEST from "./ui/manifest.webmanifest" with { type: "text" };

/** Path → [content type, body]. */
const ASSETS: Record<string, [string, string]> = {
  "/assets/app.js": ["text/javascript; charset=utf-8", APP_JS],
  "/assets/app.css": ["text/css; charset=utf-8", APP_CSS],
  "/favicon.svg": ["image/svg+xml", FAVICON],
  "/manifest.webmanifest": ["application/manifest+json", MANIFEST],
};

/** Mount the static files on `app`; `/favicon.ico` (asked for by some browsers) gets the icon. */
export function mountAssets<E extends Env>(app: Hono<E>): void {
  for (const [path, [type, body]] of Object.entries(ASSETS)) {
    app.get(path, (c) => {
      c.header("content-type", type);
      // The same URL serves a new build after an upgrade: revalidate, never cache stale code.
      c.header("cache-control", "no-cache");
      return c.body(body);
    });
  }
  app.get("/favicon.ico", (c) => c.redirect("/favicon.svg", 301));
}
