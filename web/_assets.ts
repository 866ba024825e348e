/**
 * The page's static files: the script bundles (web/build.ts), the stylesheet, the icon and the
 * web app manifest, served without a token (the login screen needs them), and gzipped once for
 * browsers that take it (a phone on the home wifi loads a third). Their text (web/_asset_texts.ts)
 * is loaded by the first request for one of them.
 */
import type { Context, Env, Hono } from "hono";

const JS = "text/javascript; charset=utf-8";

/** Path → content type. */
const ASSET_TYPES: Record<string, string> = {
  "/assets/app.js": JS,
  "/assets/graph.js": JS,
  "/assets/markdown.js": JS,
  "/assets/app.css": "text/css; charset=utf-8",
  "/favicon.svg": "image/svg+xml",
  "/manifest.webmanifest": "application/manifest+json",
};

let bodies: Promise<Record<string, string>> | undefined;

/** The files' text, imported once. */
function assetBodies(): Promise<Record<string, string>> {
  return bodies ??= import("./_asset_texts.ts").then((m) => m.ASSET_BODIES);
}

/** Mount the static files on `app`; `/favicon.ico` (asked for by some browsers) gets the icon. */
export function mountAssets<E extends Env>(app: Hono<E>): void {
  for (const [path, type] of Object.entries(ASSET_TYPES)) {
    const gzipped = lazyGzip(async () => (await assetBodies())[path]!);
    app.get(path, async (c: Context<E>) => {
      const body = (await assetBodies())[path]!;
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

/** The gzip of `text()`, made on first use and kept (the assets never change while running). */
function lazyGzip(text: () => Promise<string>): () => Promise<Uint8Array<ArrayBuffer>> {
  let made: Promise<Uint8Array<ArrayBuffer>> | undefined;
  return () =>
    made ??= text().then((body) =>
      new Response(new Blob([body]).stream().pipeThrough(new CompressionStream("gzip"))).bytes()
    );
}
