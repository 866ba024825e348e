/**
 * `node:url` for the agent build cache on POSIX (see path.ts): `fileURLToPath` as Node's, which
 * the agent calls at start (its launch facts); `pathToFileURL` from node:url itself, loaded on
 * its first call (a plugin's start).
 */

/** The path of a `file:` URL, percent-decoded; throws a TypeError for anything else. */
export function fileURLToPath(url: string | URL): string {
  const parsed = typeof url === "string" ? new URL(url) : url;
  if (!(parsed instanceof URL)) throw new TypeError("The path must be a string or a URL");
  if (parsed.protocol !== "file:") throw new TypeError("The URL must be of scheme file");
  if (parsed.hostname !== "") throw new TypeError(`File URL host must be "localhost" or empty`);
  const pathname = parsed.pathname;
  for (let i = 0; i < pathname.length; i++) {
    if (
      pathname[i] === "%" && pathname[i + 1] === "2" &&
      (pathname.codePointAt(i + 2)! | 0x20) === 102
    ) {
      throw new TypeError("File URL path must not include encoded / characters");
    }
  }
  return decodeURIComponent(pathname);
}

/** node:url's own, loaded on the first call. */
export function pathToFileURL(path: string): URL {
  const url = globalThis.process.getBuiltinModule("node:url") as typeof import("node:url");
  return url.pathToFileURL(path);
}
