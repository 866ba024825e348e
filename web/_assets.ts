/**
 * The page's static files: the later script bundles (web/build.ts), the icon and the
 * web app manifest, served without a token (the login screen needs them), and gzipped once for
 * browsers that take it (a phone on the home wifi loads a third). Their text (web/_asset_texts.ts)
 * is loaded by the first request for one of them.
 */
import type { Context, Env, Hono } from "hono";

/** Content type by file extension. */
const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  webmanifest: "application/manifest+json",
};

/** A chunk's name carries the hash of its content (web/build.ts): its URL never changes meaning. */
const HASHED = /^\/assets\/[\w-]+-[A-Z0-9]{8}\.js$/;

let bodies: Promise<Readonly<Record<string, string>>> | undefined;

/** The files' text, imported once. */
function assetBodies(): Promise<Readonly<Record<string, string>>> {
  return bodies ??= import("./_asset_texts.ts").then((m) => m.ASSET_BODIES);
}

/**
 * Mount the static files on `app`: the bundles and the stylesheet under `/assets/`, the icon
 * and the manifest; `/favicon.ico` (asked for by some browsers) gets the icon.
 */
export function mountAssets<E extends Env>(app: Hono<E>): void {
  const gzipped = new Map<string, () => Promise<Uint8Array<ArrayBuffer>>>();
  const serve = async (c: Context<E>, next: () => Promise<void>) => {
    const path = c.req.path;
    const body = (await assetBodies())[path];
    if (body === undefined) return await next();
    c.header("content-type", TYPES[path.slice(path.lastIndexOf(".") + 1)] ?? "text/plain");
    // The same URL serves a new build after an upgrade: revalidate, never run stale code.
    // A hashed chunk's URL names one content: kept for good.
    c.header(
      "cache-control",
      HASHED.test(path) ? "public, max-age=31536000, immutable" : "no-cache",
    );
    c.header("vary", "accept-encoding");
    if (!acceptsGzip(c.req.header("accept-encoding"))) return c.body(body);
    c.header("content-encoding", "gzip");
    if (!gzipped.has(path)) gzipped.set(path, lazyGzip(body));
    return c.body(await gzipped.get(path)!());
  };
  app.get("/assets/*", serve);
  app.get("/favicon.svg", serve);
  app.get("/manifest.webmanifest", serve);
  app.get("/favicon.ico", (c) => c.redirect("/favicon.svg", 301));
}

/** `gzip` listed without `q=0`. */
function acceptsGzip(header: string | undefined): boolean {
  return (header ?? "").split(",").some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    return name === "gzip" && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
  });
}

/** The gzip of `body`, made on first use and kept (the assets never change while running). */
function lazyGzip(body: string): () => Promise<Uint8Array<ArrayBuffer>> {
  let made: Promise<Uint8Array<ArrayBuffer>> | undefined;
  return () =>
    made ??= new Response(new Blob([body]).stream().pipeThrough(new CompressionStream("gzip")))
      .bytes();
}
