/** files_write and files_edit: changes inside the sandbox, atomic, recorded per turn. */
import { dirname } from "node:path";
import { looksBinary, writeAtomic } from "../_fs.ts";
import type { ChangeRecorder } from "../changes/types.ts";
import { type Sandbox, SandboxError, type SandboxPath } from "./sandbox.ts";

/** Limits and collaborators of the writing tools. */
export interface WriteOptions {
  sandbox: Sandbox;
  maxWriteBytes: number;
  maxReadBytes: number;
  recorder?: ChangeRecorder;
  turnId: string;
}

/** How files_write changes a file. */
export type WriteMode = "overwrite" | "append" | "insert" | "create";

const encoder = new TextEncoder();

/** files_write: create, replace, append to, or insert lines into a text file. */
export async function filesWrite(
  args: { path: string; content: string; mode?: WriteMode; line?: number },
  options: WriteOptions,
): Promise<string> {
  const mode = args.mode ?? "overwrite";
  const target = await options.sandbox.resolve(args.path);
  const before = target.exists ? await current(target, options) : null;
  if (mode === "create" && target.exists) {
    throw new SandboxError(`"${target.shown}" already exists; use mode "overwrite" to replace it`);
  }
  let text: string;
  if (mode === "append") text = decodeText(before, target) + args.content;
  else if (mode === "insert") text = insertLines(decodeText(before, target), args, target);
  else text = args.content;
  const bytes = encoder.encode(text);
  if (bytes.length > options.maxWriteBytes) {
    throw new SandboxError(
      `"${target.shown}" would have ${bytes.length} bytes, more than the limit of ` +
        `${options.maxWriteBytes} (plugin.files.max_write_bytes)`,
    );
  }
  await makeParents(target, options.sandbox);
  await writeAtomic(target.real, bytes);
  await options.recorder?.record(options.turnId, "files_write", [{
    path: target.real,
    before: before?.bytes ?? null,
    after: bytes,
    beforeUnknown: before?.unknown,
  }]);
  const verb = !target.exists
    ? "Created"
    : mode === "overwrite"
    ? "Replaced"
    : mode === "append"
    ? "Appended to"
    : `Inserted at line ${args.line} of`;
  return `${verb} ${target.shown} (${bytes.length} bytes)`;
}

/** files_edit: replace each `old` (which must occur exactly once) with its `new`, all or none. */
export async function filesEdit(
  args: { path: string; edits: { old: string; new: string }[] },
  options: WriteOptions,
): Promise<string> {
  const target = await options.sandbox.resolve(args.path);
  if (!target.exists) throw new SandboxError(`File "${target.shown}" does not exist`);
  const before = await current(target, options);
  if (before.unknown) {
    throw new SandboxError(
      `File "${target.shown}" is too large to edit (plugin.files.max_read_bytes)`,
    );
  }
  let text = decodeText(before, target);
  args.edits.forEach((edit, i) => {
    const which = args.edits.length > 1 ? `Edit ${i + 1}: ` : "";
    if (edit.old === "") throw new SandboxError(`${which}"old" is empty`);
    const count = occurrences(text, edit.old);
    if (count !== 1) {
      throw new SandboxError(
        count === 0
          ? `${which}the old text was not found in ${target.shown}; nothing was changed`
          : `${which}the old text occurs ${count} times in ${target.shown}; add surrounding ` +
            `lines so it matches once. Nothing was changed`,
      );
    }
    const at = text.indexOf(edit.old);
    text = text.slice(0, at) + edit.new + text.slice(at + edit.old.length);
  });
  const bytes = encoder.encode(text);
  if (bytes.length > options.maxWriteBytes) {
    throw new SandboxError(`The edited file would exceed plugin.files.max_write_bytes`);
  }
  await writeAtomic(target.real, bytes);
  await options.recorder?.record(options.turnId, "files_edit", [{
    path: target.real,
    before: before.bytes,
    after: bytes,
  }]);
  return `Applied ${args.edits.length} edit${
    args.edits.length === 1 ? "" : "s"
  } to ${target.shown}`;
}

interface Current {
  bytes: Uint8Array | null;
  unknown?: boolean;
}

/** The existing file's bytes (null and unknown when over the read limit). */
async function current(target: SandboxPath, options: WriteOptions): Promise<Current> {
  const info = await Deno.stat(target.real);
  if (!info.isFile) throw new SandboxError(`"${target.shown}" is not a regular file`);
  // Writing through a hard link would change a file that may live outside the sandbox.
  if ((info.nlink ?? 1) > 1) {
    throw new SandboxError(`"${target.shown}" is hard-linked elsewhere; refusing to change it`);
  }
  if (info.size > options.maxReadBytes) return { bytes: null, unknown: true };
  return { bytes: await Deno.readFile(target.real) };
}

function decodeText(current: Current | null, target: SandboxPath): string {
  if (!current) return "";
  if (current.unknown || !current.bytes) {
    throw new SandboxError(`File "${target.shown}" is too large to change in place`);
  }
  if (looksBinary(current.bytes)) throw new SandboxError(`File "${target.shown}" is binary`);
  return new TextDecoder().decode(current.bytes);
}

function insertLines(text: string, args: { content: string; line?: number }, target: SandboxPath) {
  const lines = text === "" ? [] : text.split("\n");
  const trailing = lines.at(-1) === "";
  if (trailing) lines.pop();
  const line = args.line;
  if (line === undefined || !Number.isInteger(line) || line < 1 || line > lines.length + 1) {
    throw new SandboxError(
      `Mode "insert" needs "line" from 1 to ${lines.length + 1} (${target.shown} has ` +
        `${lines.length} lines; the content goes before that line)`,
    );
  }
  const block = args.content.endsWith("\n") ? args.content.slice(0, -1) : args.content;
  lines.splice(line - 1, 0, ...block.split("\n"));
  return lines.join("\n") + (trailing || text === "" ? "\n" : "");
}

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at >= 0 && count < 100; at = text.indexOf(part, at + 1)) {
    count++;
  }
  return count;
}

/** Create the missing folders of `target`, re-checking each against the sandbox. */
async function makeParents(target: SandboxPath, sandbox: Sandbox): Promise<void> {
  const parent = dirname(target.real);
  if (await Deno.stat(parent).then((s) => s.isDirectory, () => false)) return;
  const checked = await sandbox.resolve(parent);
  await Deno.mkdir(checked.real, { recursive: true, mode: 0o700 });
}
