/**
 * How cmd tells what a command changed: the regular files under its working folder are
 * listed (size, mtime) before and after, and the small ones' contents kept from before, so a
 * change becomes a changeset entry with both contents. Limits (docs/plugins.md "cmd"): only
 * that folder (not .git, node_modules or links), at most MAX_FILES files, contents only of
 * files up to MAX_FILE_BYTES and MAX_TOTAL_BYTES in all; other changed files are listed as
 * untracked. A change made by a process that outlives the command is not seen.
 */
import type { FileChange } from "../changes/types.ts";
import { walk } from "../files/read.ts";

const MAX_FILES = 2000;
const MAX_FILE_BYTES = 256 * 1024;
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;

interface Seen {
  size: number;
  mtime: number;
  bytes?: Uint8Array;
}

/** The files under one folder at one moment. */
export interface Snapshot {
  files: Map<string, Seen>;
  /** The folder had more files than are listed. */
  partial: boolean;
}

/** List `dir` (with contents when `contents`). */
export async function snapshot(dir: string, contents: boolean): Promise<Snapshot> {
  const files = new Map<string, Seen>();
  let total = 0;
  await walk(dir, async (path) => {
    const info = await Deno.stat(path).catch(() => undefined);
    if (!info) return;
    const seen: Seen = { size: info.size, mtime: info.mtime?.getTime() ?? 0 };
    if (contents && info.size <= MAX_FILE_BYTES && total + info.size <= MAX_TOTAL_BYTES) {
      seen.bytes = await Deno.readFile(path).catch(() => undefined);
      total += seen.bytes?.length ?? 0;
    }
    files.set(path, seen);
  }, () => files.size >= MAX_FILES);
  return { files, partial: files.size >= MAX_FILES };
}

/** The changes between `before` and the folder now, and the changed files not tracked. */
export async function changesSince(
  before: Snapshot,
  dir: string,
): Promise<{ changes: FileChange[]; untracked: string[] }> {
  const after = await snapshot(dir, false);
  const changes: FileChange[] = [];
  const untracked: string[] = [];
  for (const [path, now] of after.files) {
    const was = before.files.get(path);
    // Same size and mtime: unchanged, unless the content was kept (a same-millisecond
    // rewrite of equal length keeps both), in which case the bytes decide.
    if (was && !was.bytes && was.size === now.size && was.mtime === now.mtime) continue;
    const bytes = now.size <= MAX_FILE_BYTES ? await Deno.readFile(path).catch(() => null) : null;
    if (bytes === null || (was && !was.bytes)) {
      untracked.push(`${path} (${was ? "changed" : "created"}; too large to keep)`);
      continue;
    }
    if (was?.bytes && equal(was.bytes, bytes)) continue; // touched, same content
    changes.push({ path, before: was?.bytes ?? null, after: bytes });
  }
  if (!after.partial && !before.partial) {
    for (const [path, was] of before.files) {
      if (after.files.has(path)) continue;
      if (was.bytes) changes.push({ path, before: was.bytes, after: null });
      else untracked.push(`${path} (deleted; too large to keep)`);
    }
  }
  if (before.partial || after.partial) {
    untracked.push(`${dir} has more than ${MAX_FILES} files; changes beyond them are not tracked`);
  }
  return { changes, untracked };
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
