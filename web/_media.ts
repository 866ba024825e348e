/**
 * Media over HTTP (DESIGN.md §6): `POST /api/v1/media` stores an upload (raw bytes or a
 * multipart `file`), `GET /api/v1/media/{digest}` serves the verified bytes (a damaged blob is
 * an error naming it, never served), `GET /api/v1/media/{digest}/info` the block; and the
 * helpers the chat routes and the OpenAI endpoint use to turn digests and data: URLs into
 * stored media. Every upload is hostile: the store sniffs its type, bounds its size and pixels.
 */
import type { Hono } from "hono";
import {
  checkDigest,
  checkMediaCount,
  MediaError,
  type MediaRef,
  type MediaStore,
} from "../core/mod.ts";
import type { WebDeps } from "./ports.ts";
import type { WebEnv } from "./_login.ts";
import { HttpError } from "./_http.ts";

/** The upload route (its body limit is the media limit, not the API's 1 MiB). */
export const MEDIA_PATH = "/api/v1/media";

function store(deps: WebDeps): MediaStore {
  if (!deps.media?.enabled) {
    throw new HttpError(
      409,
      "media_disabled",
      "Media memory is off (core.memory.media.enabled = false)",
    );
  }
  return deps.media;
}

/** Mount the media routes on `app` (behind its auth). */
export function mountMedia(app: Hono<WebEnv>, deps: WebDeps): void {
  app.post(MEDIA_PATH, async (c) => {
    const media = store(deps);
    const type = c.req.header("content-type") ?? "";
    let bytes: Uint8Array;
    if (type.startsWith("multipart/form-data")) {
      const file = (await c.req.formData()).get("file");
      if (!(file instanceof File)) {
        throw new HttpError(400, "bad_request", 'Expected a form field "file"');
      }
      bytes = new Uint8Array(await file.arrayBuffer());
    } else {
      bytes = new Uint8Array(await c.req.arrayBuffer());
    }
    if (bytes.length === 0) throw new HttpError(400, "bad_request", "The upload is empty");
    const ref = await media.put(bytes, { declaredMime: type });
    return c.json({ ...ref, url: `${MEDIA_PATH}/${ref.digest}` }, 201);
  });
  app.get(`${MEDIA_PATH}/:digest/info`, async (c) => {
    const block = await store(deps).info(checkDigest(c.req.param("digest")));
    if (!block) throw new MediaError("not_found", `No media block sha256:${c.req.param("digest")}`);
    return c.json(block);
  });
  app.get(`${MEDIA_PATH}/:digest`, async (c) => {
    const item = await store(deps).get(c.req.param("digest"));
    return c.body(item.bytes as Uint8Array<ArrayBuffer>, 200, {
      "content-type": item.mime,
      "content-length": String(item.size),
      // The sniffed type only, never rendered as anything else, never able to run script.
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      "cache-control": "private, max-age=31536000, immutable",
    });
  });
}

/** The stored media of `digests` (each must exist), bounded by the store's count limit. */
export async function refsOf(
  deps: WebDeps,
  digests: readonly string[] | undefined,
): Promise<MediaRef[]> {
  if (!digests?.length) return [];
  const media = store(deps);
  checkMediaCount(digests.length, media.limits);
  const refs: MediaRef[] = [];
  for (const digest of digests) {
    const block = await media.info(digest);
    if (!block) {
      throw new MediaError("not_found", `No media block sha256:${digest}: upload it first`);
    }
    refs.push({ digest: block.digest, mime: block.mime, size: block.size });
  }
  return refs;
}

/** An OpenAI `image_url` content part's URL (string or {url}), else undefined. */
export function imageUrlOf(part: Record<string, unknown>): string | undefined {
  if (part.type !== "image_url") return undefined;
  const value = part.image_url;
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && typeof (value as { url?: unknown }).url === "string") {
    return (value as { url: string }).url;
  }
  throw new HttpError(400, "bad_request", "image_url parts need image_url.url", {
    param: "messages",
  });
}

/**
 * Store the images of data: URLs. A remote URL is refused (the server never fetches on a
 * client's behalf); with media memory off the images are left out and `off` says how many.
 */
export async function storeDataUrls(
  deps: WebDeps,
  urls: readonly string[],
): Promise<{ refs: MediaRef[]; off: number }> {
  if (urls.length === 0) return { refs: [], off: 0 };
  if (!deps.media?.enabled) return { refs: [], off: urls.length };
  checkMediaCount(urls.length, deps.media.limits);
  const refs: MediaRef[] = [];
  for (const url of urls) {
    const match = /^data:([^;,]*)(;base64)?,/.exec(url);
    if (!match || !match[2]) {
      throw new HttpError(
        400,
        "bad_request",
        "Only base64 data: URLs are accepted for images (this server does not fetch remote URLs)",
        { param: "messages" },
      );
    }
    let bytes: Uint8Array;
    try {
      bytes = Uint8Array.from(atob(url.slice(match[0].length)), (ch) => ch.charCodeAt(0));
    } catch {
      // atob's own message ("Failed to decode base64") says less than this one.
      throw new HttpError(400, "bad_request", "An image's data: URL is not valid base64", {
        param: "messages",
      });
    }
    refs.push(await deps.media.put(bytes, { declaredMime: match[1] }));
  }
  return { refs, off: 0 };
}
