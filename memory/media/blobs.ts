/**
 * The blob half of the content-addressed store: `memory/media/blobs/<first2>/<rest>`, named by
 * the sha256 of the bytes. A digest is validated before it becomes a path; a write goes to a
 * temporary file, is fsynced and renamed into place (a half-written blob never carries a
 * digest); a read re-hashes the bytes and refuses them when they no longer match.
 * @module
 */
import { join } from "node:path";
import { checkDigest, DIGEST_PATTERN, errorMessage, MediaError } from "../../core/mod.ts";

/** Lowercase hex sha256 of `bytes` (WebCrypto, off the main thread where the runtime can). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  let hex = "";
  for (const b of hash) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/** Blobs on disk under one folder. */
export class BlobFiles {
  readonly dir: string;
  #seq = 0;

  /** `dir` is `memory/media`; blobs live in its `blobs/`. */
  constructor(dir: string) {
    this.dir = join(dir, "blobs");
  }

  /** The file of `digest`; throws MediaError("bad_digest") for anything but 64 lowercase hex. */
  path(digest: string): string {
    checkDigest(digest);
    return join(this.dir, digest.slice(0, 2), digest.slice(2));
  }

  /** True when a blob of `digest` is on disk. */
  async has(digest: string): Promise<boolean> {
    try {
      return (await Deno.stat(this.path(digest))).isFile;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
  }

  /** Write `bytes` as the blob of `digest` (the caller hashed them): tmp, fsync, rename. */
  async write(digest: string, bytes: Uint8Array): Promise<void> {
    const target = this.path(digest);
    const folder = join(this.dir, digest.slice(0, 2));
    await Deno.mkdir(folder, { recursive: true, mode: 0o700 });
    const tmp = join(folder, `.${digest.slice(2, 10)}.${Deno.pid}.${++this.#seq}.tmp`);
    const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
    try {
      let at = 0;
      while (at < bytes.length) at += await file.write(bytes.subarray(at));
      await file.sync();
    } catch (error) {
      file.close();
      await Deno.remove(tmp).catch(() => {});
      throw error;
    }
    file.close();
    await Deno.rename(tmp, target);
    await syncFolder(folder);
  }

  /**
   * The bytes of `digest`, re-verified. Throws MediaError "not_found" when there is no blob and
   * "corrupt" (naming the file) when its bytes no longer hash to the digest.
   */
  async read(digest: string): Promise<Uint8Array> {
    const path = this.path(digest);
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new MediaError("not_found", `No stored media sha256:${digest}`, { cause: error });
      }
      throw new MediaError("corrupt", `Cannot read media file "${path}": ${errorMessage(error)}`, {
        cause: error,
      });
    }
    const actual = await sha256Hex(bytes);
    if (actual !== digest) {
      throw new MediaError(
        "corrupt",
        `Media file "${path}" is damaged: its bytes hash to sha256:${actual.slice(0, 12)}…, ` +
          `not to its name; it is not served. Restore it from a backup or delete the block.`,
      );
    }
    return bytes;
  }

  /** Every digest with a blob on disk (temporary files are left out). */
  async *digests(): AsyncGenerator<string> {
    let folders: Deno.DirEntry[];
    try {
      folders = await Array.fromAsync(Deno.readDir(this.dir));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const folder of folders) {
      if (!folder.isDirectory || !/^[0-9a-f]{2}$/.test(folder.name)) continue;
      for await (const file of Deno.readDir(join(this.dir, folder.name))) {
        const digest = folder.name + file.name;
        if (file.isFile && DIGEST_PATTERN.test(digest)) yield digest;
      }
    }
  }

  /** Remove the blob of `digest`; false when there was none. */
  async remove(digest: string): Promise<boolean> {
    try {
      await Deno.remove(this.path(digest));
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
  }
}

/** fsync a folder so a rename into it survives a power cut (ignored where unsupported). */
async function syncFolder(folder: string): Promise<void> {
  try {
    const dir = await Deno.open(folder, { read: true });
    try {
      await dir.sync();
    } finally {
      dir.close();
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself is still atomic.
  }
}
