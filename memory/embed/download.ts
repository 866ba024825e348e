/**
 * Resumable, verified downloads of files whose size and SHA-256 are known in advance (model
 * files). The bytes go to `<dest>.part`, which is kept when a connection is cut: the next
 * attempt — a retry here, or the next run of the command — asks only for the rest (HTTP
 * Range). The file appears at `dest` only once its size and SHA-256 match; a server that
 * offers the wrong size, or bytes with the wrong hash, is refused and the partial file deleted.
 * @module
 */
import type { Hash } from "node:crypto";
import { EmbeddingError, errorMessage } from "../../core/mod.ts";

/** What to fetch and what it must be. */
export interface DownloadSpec {
  url: string;
  size: number;
  /** Lower-case hex. */
  sha256: string;
}

/** Progress of one file. */
export interface DownloadProgress {
  url: string;
  /** Bytes on disk so far (resumed ones included). */
  bytes: number;
  total: number;
  /** Bytes that were already there when this attempt began. */
  resumedFrom: number;
}

/** Options of downloadVerified. */
export interface DownloadOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Called after every chunk written. */
  onProgress?: (progress: DownloadProgress) => void;
  /** Attempts after a cut connection or a server error; default 3. */
  attempts?: number;
}

/** The failure every refusal throws (provider "download"). */
function refused(url: string, why: string, cause?: unknown): EmbeddingError {
  return new EmbeddingError("download", "failed", `Cannot download "${url}": ${why}`, { cause });
}

/** A cut connection or a 5xx: worth another attempt that resumes. */
class Retryable extends Error {}

/**
 * Download `spec` to `dest` (resuming `dest.part`), verify it and rename it into place.
 * Rejects with EmbeddingError when it cannot be had or is not what `spec` says.
 */
export async function downloadVerified(
  spec: DownloadSpec,
  dest: string,
  options: DownloadOptions = {},
): Promise<void> {
  const part = `${dest}.part`;
  const attempts = Math.max(1, options.attempts ?? 3);
  let last: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    options.signal?.throwIfAborted();
    try {
      await attemptDownload(spec, part, options);
      last = undefined;
      break;
    } catch (error) {
      if (!(error instanceof Retryable)) throw error;
      last = error;
    }
  }
  if (last !== undefined) {
    throw refused(
      spec.url,
      `${errorMessage(last)} (after ${attempts} attempts; run it again to resume)`,
      last,
    );
  }
  const { size, sha256 } = await hashFile(part);
  if (size !== spec.size) {
    await Deno.remove(part).catch(() => {});
    throw refused(spec.url, `got ${size} bytes, expected ${spec.size}`);
  }
  if (sha256 !== spec.sha256) {
    await Deno.remove(part).catch(() => {});
    throw refused(spec.url, `sha256 ${sha256} differs from the expected ${spec.sha256}`);
  }
  await Deno.rename(part, dest);
}

/** One request: resume from what `part` holds, append until the body ends or breaks. */
async function attemptDownload(spec: DownloadSpec, part: string, options: DownloadOptions) {
  let have = await sizeOf(part);
  if (have > spec.size) {
    await Deno.remove(part);
    have = 0;
  }
  if (have === spec.size) return; // complete already: verified by the caller
  const headers: HeadersInit = have > 0 ? { range: `bytes=${have}-` } : {};
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(spec.url, { headers, signal: options.signal });
  } catch (error) {
    options.signal?.throwIfAborted();
    throw new Retryable(errorMessage(error), { cause: error });
  }
  const start = await startOffset(response, spec, have);
  using file = await Deno.open(part, { write: true, create: true, truncate: start === 0 });
  await file.seek(start, Deno.SeekMode.Start);
  let bytes = start;
  try {
    for await (const chunk of response.body!) {
      if (bytes + chunk.length > spec.size) {
        throw refused(spec.url, `the server sent more than the expected ${spec.size} bytes`);
      }
      for (let at = 0; at < chunk.length;) at += await file.write(chunk.subarray(at));
      bytes += chunk.length;
      options.onProgress?.({ url: spec.url, bytes, total: spec.size, resumedFrom: start });
    }
  } catch (error) {
    if (error instanceof EmbeddingError) {
      await Deno.remove(part).catch(() => {});
      throw error;
    }
    options.signal?.throwIfAborted();
    await file.sync();
    throw new Retryable(`the connection broke at byte ${bytes}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  await file.sync();
  if (bytes < spec.size) throw new Retryable(`the body ended at byte ${bytes} of ${spec.size}`);
}

/**
 * Where this response's body starts in the file, after checking what the server says about
 * the size: 206 continues at `have`, 200 starts over; a size other than the expected one is
 * refused at once (nothing is kept).
 */
async function startOffset(response: Response, spec: DownloadSpec, have: number): Promise<number> {
  const fail = async (why: string, retry = false) => {
    await response.body?.cancel();
    if (retry) throw new Retryable(why);
    throw refused(spec.url, why);
  };
  if (response.status === 206 && have > 0) {
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get("content-range") ?? "");
    if (!range || Number(range[1]) !== have) {
      return await fail("the server resumed at the wrong place", true);
    }
    if (range[3] !== "*" && Number(range[3]) !== spec.size) {
      return await fail(`the server offers ${range[3]} bytes, expected ${spec.size}`);
    }
    return have;
  }
  if (response.status >= 500 || response.status === 429 || response.status === 408) {
    return await fail(`HTTP ${response.status}`, true);
  }
  if (response.status !== 200 || !response.body) return await fail(`HTTP ${response.status}`);
  const length = response.headers.get("content-length");
  if (length !== null && Number(length) !== spec.size) {
    return await fail(`the server offers ${length} bytes, expected ${spec.size}`);
  }
  return 0;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
}

/** Size and SHA-256 (lower-case hex) of a file, read in a stream. */
export async function hashFile(path: string): Promise<{ size: number; sha256: string }> {
  const { createHash } = await import("node:crypto"); // loaded by the first hash, not at start
  const hash: Hash = createHash("sha256");
  let size = 0;
  using file = await Deno.open(path);
  for await (const chunk of file.readable) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest("hex") };
}
