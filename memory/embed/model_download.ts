/**
 * Model files the user named by URL: downloaded into the home's memory/models/ only because
 * the configuration says so, with progress in the log, verified (size, sha256 when given,
 * Content-Length always) before they are used. Nothing is fetched silently or implicitly.
 * @module
 */
import { basename, join } from "node:path";
import { EmbeddingError, errorMessage, type Logger } from "../../core/mod.ts";

/** Where a model comes from, with the checks its configuration asked for. */
export interface ModelSource {
  /** A local path or an http(s) URL, without the `#…` checks. */
  location: string;
  /** Expected SHA-256, lower-case hex. */
  sha256?: string;
  /** Expected size in bytes. */
  size?: number;
}

/** Options of fetchModel. */
export interface FetchModelOptions {
  /** Cache folder (`<home>/memory/models`); created when missing. */
  dir: string;
  logger: Logger;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Provider named in errors; default "static". */
  provider?: string;
}

/**
 * Parse one configured entry: a path or URL, optionally followed by `#sha256=HEX&size=N`
 * (a URL fragment never reaches the server). Throws TypeError for a malformed check.
 */
export function parseModelSource(entry: string): ModelSource {
  const trimmed = entry.trim();
  const hash = trimmed.indexOf("#");
  if (hash < 0) return { location: trimmed };
  const source: ModelSource = { location: trimmed.slice(0, hash) };
  for (const [key, value] of new URLSearchParams(trimmed.slice(hash + 1))) {
    if (key === "sha256" && /^[0-9a-fA-F]{64}$/.test(value)) source.sha256 = value.toLowerCase();
    else if (key === "size" && /^\d+$/.test(value)) source.size = Number(value);
    else throw new TypeError(`Cannot read model entry "${entry}": bad check "${key}=${value}"`);
  }
  return source;
}

/** True when `location` is an http:// or https:// URL. */
export function isRemote(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/**
 * Download `source` into `options.dir` unless a verified copy is there; resolves to the
 * local path. Logs start, progress (every 10 %, or 16 MiB without a length) and the end.
 * Rejects with EmbeddingError ("failed") on HTTP errors, truncation or a checksum mismatch,
 * leaving no partial file behind.
 */
export async function fetchModel(source: ModelSource, options: FetchModelOptions): Promise<string> {
  const provider = options.provider ?? "static";
  const url = source.location;
  const name = basename(new URL(url).pathname).replace(/[^A-Za-z0-9._-]/g, "_") || "model";
  const path = join(options.dir, name);
  const fail = (why: string, cause?: unknown) =>
    new EmbeddingError(provider, "failed", `Cannot download model "${url}": ${why}`, { cause });
  await Deno.mkdir(options.dir, { recursive: true });
  if (await cachedCopyIsGood(path, source, options.logger)) return path;
  options.logger.info("Downloading model", { url, path, expectedBytes: source.size });
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, { signal: options.signal });
  } catch (error) {
    throw fail(errorMessage(error), error);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw fail(`HTTP ${response.status}`);
  }
  const header = response.headers.get("content-length");
  const total = header === null ? source.size : Number(header);
  const tmp = `${path}.part`;
  try {
    const { bytes, sha256 } = await writeWithProgress(response.body, tmp, {
      logger: options.logger,
      url,
      total,
    });
    if (header !== null && bytes !== Number(header)) {
      throw fail(`received ${bytes} bytes of ${header}`);
    }
    if (source.size !== undefined && bytes !== source.size) {
      throw fail(`size ${bytes} differs from the expected ${source.size}`);
    }
    if (source.sha256 !== undefined && sha256 !== source.sha256) {
      throw fail(`sha256 ${sha256} differs from the expected ${source.sha256}`);
    }
    await Deno.rename(tmp, path);
    options.logger.info("Downloaded model", { url, path, bytes, sha256 });
    return path;
  } catch (error) {
    await Deno.remove(tmp).catch(() => {});
    throw error instanceof EmbeddingError ? error : fail(errorMessage(error), error);
  }
}

/** SHA-256 of a file, lower-case hex, read in a stream. */
export async function sha256File(path: string): Promise<string> {
  const { createHash } = await import("node:crypto"); // loaded by the first hash, not at start
  const hash = createHash("sha256");
  using file = await Deno.open(path);
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}

async function cachedCopyIsGood(path: string, source: ModelSource, logger: Logger) {
  let size: number;
  try {
    size = (await Deno.stat(path)).size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  const good = (source.size === undefined || size === source.size) &&
    (source.sha256 === undefined || await sha256File(path) === source.sha256);
  if (good) logger.info("Using cached model", { url: source.location, path, bytes: size });
  else logger.warn("Cached model fails its check; downloading again", { path });
  return good;
}

async function writeWithProgress(
  body: ReadableStream<Uint8Array>,
  tmp: string,
  progress: { logger: Logger; url: string; total: number | undefined },
): Promise<{ bytes: number; sha256: string }> {
  const { createHash } = await import("node:crypto"); // loaded by the first hash, not at start
  const hash = createHash("sha256");
  using file = await Deno.open(tmp, { write: true, create: true, truncate: true });
  const step = progress.total ? Math.max(1, Math.ceil(progress.total / 10)) : 16 * 2 ** 20;
  let bytes = 0;
  let next = step;
  let logged = 0;
  const log = () => {
    const { total, logger, url } = progress;
    const percent = total ? Math.min(100, Math.floor(bytes * 100 / total)) : undefined;
    logger.info("Download progress", { url, bytes, total, percent });
    logged = bytes;
  };
  for await (const chunk of body) {
    hash.update(chunk);
    for (let at = 0; at < chunk.length;) at += await file.write(chunk.subarray(at));
    bytes += chunk.length;
    if (bytes >= next) {
      log();
      while (next <= bytes) next += step;
    }
  }
  if (logged !== bytes) log();
  await file.sync();
  return { bytes, sha256: hash.digest("hex") };
}
