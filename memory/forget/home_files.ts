/**
 * A forget beyond the tiers (issue 14): the daemon's own log (logs/homeagent.log and its rotated
 * files) is rewritten with the names blanked out, and copies the home set aside as corrupt
 * (`<file>.corrupt-<time>`) that mention one are deleted: they were kept for the owner to look at
 * by hand and cannot be rewritten safely (a torn JSON file, a damaged SQLite database).
 *
 * A log may hold 60 MB: whole files, then lines, are asked the SweepRedactor's cheap test first.
 */
import { join, relative } from "node:path";
import { writeFileAtomic } from "../home.ts";
import type { SweepRedactor } from "./hint.ts";

/** What a sweep of the home's own files did. */
export interface HomeFilesSweep {
  /** Log files rewritten and lines changed in them. */
  logs: { files: number; lines: number };
  /** Corrupt copies deleted because they held a name (paths relative to the home). */
  removedCopies: string[];
}

/** Where the sweep looks. */
export interface HomeFilesOptions {
  /** The home's root (corrupt copies are looked for below it). */
  root: string;
  /** logs/ */
  logs: string;
  /** Folders left out of the search for copies: the owner's files, content-addressed blobs. */
  skip: readonly string[];
}

const LOG_FILE = /^homeagent\.log(\.\d+)?$/;
const CORRUPT_COPY = /\.corrupt-/;
const decoder = new TextDecoder();

/** Blank this forget's names out of the home's files (see SweepRedactor for which texts). */
export async function sweepHomeFiles(
  options: HomeFilesOptions,
  redactor: SweepRedactor,
): Promise<HomeFilesSweep> {
  const logs = { files: 0, lines: 0 };
  // Oldest first: a rotation meanwhile moves the live file onto names already swept.
  for (const file of await logFiles(options.logs)) {
    const lines = await redactLogFile(join(options.logs, file), redactor);
    if (lines > 0) logs.files++;
    logs.lines += lines;
  }
  const removedCopies: string[] = [];
  for await (const path of corruptCopies(options.root, options.skip)) {
    const text = decoder.decode(await Deno.readFile(path));
    if (!redactor.mayMention(text) || !text.split("\n").some((l) => redactor.mentions(l))) {
      continue;
    }
    await Deno.remove(path);
    removedCopies.push(relative(options.root, path));
  }
  return { logs, removedCopies: removedCopies.sort() };
}

async function logFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && LOG_FILE.test(entry.name)) names.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const age = (name: string) => Number(/\.(\d+)$/.exec(name)?.[1] ?? 0);
  return names.sort((a, b) => age(b) - age(a));
}

/** Redacted lines of `text` and how many changed. */
function redactLines(text: string, redactor: SweepRedactor) {
  let changed = 0;
  const lines = text.split("\n").map((line) => {
    if (!redactor.mentions(line)) return line;
    changed++;
    return redactor.redact(line);
  });
  return { text: lines.join("\n"), changed };
}

/**
 * Rewrite one log file atomically. The guard may be appending to it: its lines written while
 * this runs go to the file read here (the guard reopens the path once it is replaced), so they
 * are read after the rename and appended, redacted; a rotation meanwhile makes it start over.
 */
async function redactLogFile(path: string, redactor: SweepRedactor): Promise<number> {
  for (let attempt = 0; attempt < 3; attempt++) {
    using file = await Deno.open(path, { read: true });
    const bytes = await readRest(file);
    const cut = bytes.lastIndexOf(0x0a) + 1; // a line being written is read with the tail
    const text = decoder.decode(bytes.subarray(0, cut));
    if (!redactor.mayMention(text)) return 0;
    const head = redactLines(text, redactor);
    if (head.changed === 0) return 0;
    if ((await Deno.stat(path)).ino !== (await file.stat()).ino) continue; // rotated meanwhile
    await writeFileAtomic(path, head.text);
    const tail = await joined([bytes.subarray(cut), await readRest(file)]);
    if (tail.length === 0) return head.changed;
    const rest = redactLines(decoder.decode(tail), redactor);
    await Deno.writeTextFile(path, rest.text, { append: true });
    return head.changed + rest.changed;
  }
  return 0; // rotated under it three times: the rotated file holds the lines, swept next time
}

/** Everything from the file's position to its end. */
async function readRest(file: Deno.FsFile): Promise<Uint8Array> {
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  const buffer = new Uint8Array(1 << 16);
  for (let n = await file.read(buffer); n !== null; n = await file.read(buffer)) {
    chunks.push(buffer.slice(0, n));
  }
  return await joined(chunks);
}

async function joined(parts: Uint8Array[]): Promise<Uint8Array> {
  return new Uint8Array(await new Blob(parts as BlobPart[]).arrayBuffer());
}

/** Files named `*.corrupt-*` below `dir`, outside `skip` (links are not followed). */
async function* corruptCopies(dir: string, skip: readonly string[]): AsyncGenerator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && !skip.includes(path)) yield* corruptCopies(path, skip);
    else if (entry.isFile && CORRUPT_COPY.test(entry.name)) yield path;
  }
}
