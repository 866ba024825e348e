/** File helpers the built-in plugins share: atomic replacement and bounded reads. */
import { dirname } from "node:path";

/**
 * Replace `path` with `data` atomically: a temporary file beside it, fsync, rename, fsync of
 * the folder, so a crash leaves the old or the new file, never a mix. `mode` defaults to the
 * existing file's mode, else 0600.
 */
export async function writeAtomic(
  path: string,
  data: Uint8Array | string,
  options: { mode?: number } = {},
): Promise<void> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const mode = options.mode ?? await Deno.stat(path).then((s) => s.mode ?? 0o600, () => 0o600);
  const tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
    try {
      let written = 0;
      while (written < bytes.length) written += await file.write(bytes.subarray(written));
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.chmod(tmp, mode & 0o7777);
    await Deno.rename(tmp, path);
  } catch (error) {
    await Deno.remove(tmp).catch(() => {});
    throw error;
  }
  const dir = await Deno.open(dirname(path), { read: true });
  try {
    await dir.sync();
  } finally {
    dir.close();
  }
}

/** Whether `bytes` look binary: a NUL byte, or not valid UTF-8, in the first 8 KiB. */
export function looksBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return true;
  try {
    // A multi-byte character cut at the 8 KiB edge is not a reason to call the file binary.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: head.length < bytes.length });
    return false;
  } catch {
    return true;
  }
}

/** SHA-256 of `bytes` as hex. */
export async function sha256(bytes: Uint8Array | string): Promise<string> {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  const digest = await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
