/**
 * The page's static files: the script bundles (web/build.ts), the stylesheet, the icon and the
 * web app manifest. They are embedded as text so one compiled binary carries the page (rebuild
 * the bundles with `deno task build:web`), served without a token (the login screen needs
 * them), and gzipped once for browsers that take it (a phone on the home wifi loads a third).
 */
import type { Context, Env, Hono } from "hono";
import APP_JS from "./ui/dist/app.js" with { type: "text" };
import GRAPH_JS from "./ui/dist/graph.js" with { type: "text" };
import MARKDOWN_JS from "./ui/dist/markdown.js" with { type: "text" };
import APP_CSS from "./ui/app.css" with { type: "text" };
import FAVICON from "./ui/favicon.svg" with { type: "text" };
import MANIFEST from "./ui/manifest.webmanifest" with { type: "text" };

const JS = "text/javascript; charset=utf-8";

/** Path → [content type, body]. */
const ASSETS: Record<string, [string, string]> = {
  "/assets/app.js": [JS, APP_JS],
  "/assets/graph.js": [JS, GRAPH_JS],
  "/assets/markdown.js": [JS, MARKDOWN_JS],
  "/assets/app.css": ["text/css; charset=utf-8", APP_CSS],
  "/favicon.svg": ["image/svg+xml", FAVICON],
  "/manifest.webmanifest": ["application/manifest+json", MANIFEST],
};

/** Mount the static files on `app`; `/favicon.ico` (asked for by some browsers) gets the icon. */
export function mountAssets<E extends Env>(app: Hono<E>): void {
  for (const [path, [type, body]] of Object.entries(ASSETS)) {
    const gzipped = lazyGzip(body);
    app.get(path, async (c: Context<E>) => {
      c.header("content-type", type);
      // The same URL serves a new build after an upgrade: revalidate, never run stale code.
      c.header("cache-control", "no-cache");
      c.header("vary", "accept-encoding");
      if (!acceptsGzip(c.req.header("accept-encoding"))) return c.body(body);
      c.header("content-encoding", "gzip");
      return c.body(await gzipped());
    });
  }
  app.get("/favicon.ico", (c) => c.redirect("/favicon.svg", 301));
}

/** `gzip` listed without `q=0`. */
function acceptsGzip(header: string | undefined): boolean {
  return (header ?? "").split(",").some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    return name === "gzip" && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
  });
}

/** The gzip of `text`, made on first use and kept (the assets never change while running). */
function lazyGzip(text: string): () => Promise<Uint8Array<ArrayBuffer>> {
  let made: Promise<Uint8Array<ArrayBuffer>> | undefined;
  return () =>
    made ??= new Response(
      new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")),
    ).bytes();
}
