/** files_read, files_ls and files_search: reading inside the sandbox, bounded. */
import { join, relative } from "node:path";
import { looksBinary } from "../_fs.ts";
import { type Sandbox, SandboxError } from "./sandbox.ts";

/** Limits of the reading tools. */
export interface ReadLimits {
  /** Largest file read or searched, in bytes. */
  maxReadBytes: number;
}

const MAX_OUTPUT_CHARS = 100_000;
const MAX_LINE_CHARS = 2000;
const DEFAULT_LINES = 2000;
const SKIP_DIRS = new Set([".git", "node_modules"]);

/** Read a text file of the sandbox; refuses folders, binary and oversize files. */
export async function readText(
  sandbox: Sandbox,
  path: string,
  limits: ReadLimits,
): Promise<{ text: string; shown: string; real: string }> {
  const target = await sandbox.resolve(path);
  if (!target.exists) throw new SandboxError(`File "${target.shown}" does not exist`);
  const info = await Deno.stat(target.real);
  if (info.isDirectory) {
    throw new SandboxError(`"${target.shown}" is a folder; list it with files_ls`);
  }
  if (!info.isFile) throw new SandboxError(`"${target.shown}" is not a regular file`);
  if (info.size > limits.maxReadBytes) {
    throw new SandboxError(
      `File "${target.shown}" has ${info.size} bytes, more than the limit of ` +
        `${limits.maxReadBytes} (plugin.files.max_read_bytes)`,
    );
  }
  const bytes = await Deno.readFile(target.real);
  if (looksBinary(bytes)) {
    throw new SandboxError(
      `File "${target.shown}" is binary (${bytes.length} bytes); only text is shown`,
    );
  }
  return { text: new TextDecoder().decode(bytes), shown: target.shown, real: target.real };
}

/** files_read: numbered lines from `offset` (1-based), at most `limit` of them. */
export async function filesRead(
  sandbox: Sandbox,
  args: { path: string; offset?: number; limit?: number },
  limits: ReadLimits,
): Promise<string> {
  const { text, shown } = await readText(sandbox, args.path, limits);
  if (text === "") return `(${shown} is empty)`;
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const first = Math.max(1, Math.trunc(args.offset ?? 1));
  if (first > lines.length) {
    return `${shown} has ${lines.length} lines; offset ${first} is past the end`;
  }
  const limit = Math.max(1, Math.trunc(args.limit ?? DEFAULT_LINES));
  const out: string[] = [];
  let chars = 0;
  let last = first - 1;
  for (let n = first; n <= lines.length && n < first + limit; n++) {
    let line = lines[n - 1]!;
    if (line.length > MAX_LINE_CHARS) line = `${line.slice(0, MAX_LINE_CHARS)} [line cut]`;
    const entry = `${String(n).padStart(6)}\t${line}`;
    if (chars + entry.length > MAX_OUTPUT_CHARS && out.length > 0) break;
    out.push(entry);
    chars += entry.length + 1;
    last = n;
  }
  if (last < lines.length) {
    out.push(
      `[lines ${first}-${last} of ${lines.length} shown; read on with offset=${last + 1}]`,
    );
  }
  return out.join("\n");
}

/** files_ls: the entries of one folder, sorted, at most `limit`. */
export async function filesLs(
  sandbox: Sandbox,
  args: { path?: string; limit?: number },
): Promise<string> {
  const target = await sandbox.resolve(args.path ?? ".");
  if (!target.exists) throw new SandboxError(`Folder "${target.shown}" does not exist`);
  if (!(await Deno.stat(target.real)).isDirectory) {
    throw new SandboxError(`"${target.shown}" is a file, not a folder`);
  }
  const limit = Math.min(Math.max(1, Math.trunc(args.limit ?? 500)), 500);
  const entries: { name: string; line: string }[] = [];
  let total = 0;
  for await (const entry of Deno.readDir(target.real)) {
    total++;
    if (entries.length >= 5000) continue; // counted, not listed
    const info = await Deno.lstat(join(target.real, entry.name)).catch(() => undefined);
    const line = entry.isDirectory
      ? `${entry.name}/`
      : entry.isSymlink
      ? `${entry.name}@`
      : `${entry.name}  ${info?.size ?? "?"}`;
    entries.push({ name: entry.name, line });
  }
  entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const shown = entries.slice(0, limit).map((e) => e.line);
  if (total === 0) return `(${target.shown} is empty)`;
  if (total > shown.length) shown.push(`[${total - shown.length} more entries not shown]`);
  return [`${target.shown}:`, ...shown].join("\n");
}

/** files_search: lines matching the regular expression `pattern` under `path`. */
export async function filesSearch(
  sandbox: Sandbox,
  args: { pattern: string; path?: string },
  limits: ReadLimits,
): Promise<string> {
  let regex: RegExp;
  try {
    regex = new RegExp(args.pattern);
  } catch (error) {
    throw new SandboxError(`Bad pattern "${args.pattern}": ${(error as Error).message}`);
  }
  const base = await sandbox.resolve(args.path ?? ".");
  if (!base.exists) throw new SandboxError(`"${base.shown}" does not exist`);
  const hits: string[] = [];
  const state = { files: 0, skipped: 0 };
  const visit = async (file: string) => {
    state.files++;
    const info = await Deno.stat(file);
    if (info.size > limits.maxReadBytes) return void state.skipped++;
    const bytes = await Deno.readFile(file);
    if (looksBinary(bytes)) return;
    const lines = new TextDecoder().decode(bytes).split("\n");
    const name = relative(base.real, file) || base.shown;
    for (let i = 0; i < lines.length && hits.length < 200; i++) {
      const line = lines[i]!.slice(0, 10_000); // a bounded line bounds the regex's work
      if (regex.test(line)) hits.push(`${name}:${i + 1}: ${line.slice(0, 300)}`);
    }
  };
  if ((await Deno.stat(base.real)).isFile) await visit(base.real);
  else {await walk(base.real, async (file) =>
      await visit(file), () =>
      hits.length >= 200 || state.files >= 5000);}
  if (hits.length === 0) return `No match for /${args.pattern}/ in ${state.files} files`;
  const notes = [];
  if (hits.length >= 200) notes.push("[first 200 matches shown]");
  if (state.skipped > 0) notes.push(`[${state.skipped} files over the size limit not searched]`);
  return [...hits, ...notes].join("\n");
}

/** Visit every regular file under `dir` (not following links, skipping .git and node_modules). */
export async function walk(
  dir: string,
  visit: (file: string) => Promise<void>,
  done: () => boolean,
): Promise<void> {
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry);
  entries.sort((a, b) => a.name < b.name ? -1 : 1);
  for (const entry of entries) {
    if (done()) return;
    const path = join(dir, entry.name);
    if (entry.isDirectory && !SKIP_DIRS.has(entry.name)) await walk(path, visit, done);
    else if (entry.isFile) await visit(path);
  }
}
