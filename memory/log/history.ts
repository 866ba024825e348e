/**
 * The conversation history the web page shows: the text log read backwards, a page at a time,
 * optionally searched and filtered by channel. A page's cursor names the file and byte offset
 * where it starts, so the next page goes on from there however the log has grown since.
 */
import { join } from "node:path";
import {
  type ConversationPage,
  type ConversationQuery,
  type ConversationTurn,
  type Logger,
  silentLogger,
} from "../../core/mod.ts";
import { listLogFiles, LOG_FILE } from "./_files.ts";

/** Bytes one page may read: a search for something rare stops here and says where to go on. */
export const HISTORY_SCAN_BYTES = 32 << 20;
const CHUNK = 64 << 10;
const CURSOR = /^(\d{8}T\d{9}Z\.jsonl):(\d{1,12})$/;
const decoder = new TextDecoder();

/** A page of the log in `dir`, newest turns first in the reading, returned oldest first. */
export async function readHistory(
  dir: string,
  query: ConversationQuery = {},
  logger: Logger = silentLogger,
): Promise<ConversationPage> {
  const limit = Math.min(200, Math.max(1, Math.trunc(query.limit ?? 30)));
  const needle = query.query?.trim().toLowerCase() ?? "";
  const files = await listLogFiles(dir);
  const from = startOf(query.before, files);
  const turns: ConversationTurn[] = [];
  let budget = HISTORY_SCAN_BYTES;
  for (let f = from.index; f >= 0; f--) {
    const file = files[f]!;
    const path = join(dir, file);
    const end = f === from.index && from.offset !== undefined
      ? await lineStart(path, from.offset, query.before!)
      : (await Deno.stat(path)).size;
    for await (const line of linesBackward(path, end)) {
      budget -= line.bytes;
      const turn = parseTurn(line.text, file, logger);
      if (turn && matches(turn, needle, query.channel)) turns.push(turn);
      if (turns.length === limit || budget <= 0) {
        return { turns: turns.reverse(), before: cursorOf(file, line.start, f) };
      }
    }
  }
  return { turns: turns.reverse() };
}

/** Absent when the page ends at the very start of the log. */
function cursorOf(file: string, start: number, index: number): string | undefined {
  return start === 0 && index === 0 ? undefined : `${file}:${start}`;
}

function startOf(before: string | undefined, files: string[]): { index: number; offset?: number } {
  if (before === undefined || before === "") return { index: files.length - 1 };
  const match = CURSOR.exec(before);
  const index = match ? files.indexOf(match[1]!) : -1;
  if (!match || index < 0 || !LOG_FILE.test(match[1]!)) {
    throw new TypeError(
      `Bad history cursor "${before.slice(0, 80)}": ask for the first page again`,
    );
  }
  return { index, offset: Number(match[2]) };
}

/** `offset` when it is the start of a line of `path`; else the cursor was not one of ours. */
async function lineStart(path: string, offset: number, cursor: string): Promise<number> {
  const file = await Deno.open(path, { read: true });
  try {
    const size = (await file.stat()).size;
    if (offset === 0 || (offset <= size && await byteAt(file, offset - 1) === 0x0a)) return offset;
  } finally {
    file.close();
  }
  throw new TypeError(`Bad history cursor "${cursor.slice(0, 80)}": ask for the first page again`);
}

function matches(turn: ConversationTurn, needle: string, channel?: string): boolean {
  if (channel !== undefined && channel !== "" && turn.channel !== channel) return false;
  if (needle === "") return true;
  const texts = [turn.input, turn.reply, ...(turn.sent ?? []).map((s) => s.text)];
  return texts.some((text) => text.toLowerCase().includes(needle));
}

/** A line of the log as a turn; an unreadable one is logged and skipped. */
export function parseTurn(
  line: string,
  file: string,
  logger: Logger,
): ConversationTurn | undefined {
  if (line.trim() === "") return undefined;
  try {
    const value = JSON.parse(line) as Partial<ConversationTurn>;
    if (typeof value.turnId === "string" && typeof value.input === "string") {
      return value as ConversationTurn;
    }
  } catch {
    // fall through to the warning
  }
  logger.warn("Skipping an unreadable text log line", { file, line: line.slice(0, 80) });
  return undefined;
}

/**
 * The whole lines of `path` before byte `end`, last first, each with the offset it starts at.
 * A last line without its newline (being written, or torn by a crash) is not a line yet.
 */
async function* linesBackward(
  path: string,
  end: number,
): AsyncGenerator<{ text: string; start: number; bytes: number }> {
  const file = await Deno.open(path, { read: true });
  try {
    let pos = end;
    let buf: Uint8Array = new Uint8Array(0); // bytes [pos, right)
    let right = end; // just after a newline, or where the partial tail starts
    let partial = end > 0 && (await byteAt(file, end - 1)) !== 0x0a;
    while (pos > 0) {
      const size = Math.min(CHUNK, pos);
      pos -= size;
      buf = concat(await readAt(file, pos, size), buf);
      if (partial) {
        const nl = buf.lastIndexOf(0x0a);
        if (nl < 0) continue;
        right = pos + nl + 1;
        buf = buf.subarray(0, nl + 1);
        partial = false;
      }
      // The byte at right-1 is the newline ending the line being gathered.
      for (let i = right - pos - 2; i >= 0; i--) {
        if (buf[i] !== 0x0a) continue;
        const text = decoder.decode(buf.subarray(i + 1, right - pos - 1));
        yield { text, start: pos + i + 1, bytes: right - (pos + i + 1) };
        right = pos + i + 1;
      }
      buf = buf.subarray(0, right - pos);
    }
    if (!partial && right > 0) {
      yield { text: decoder.decode(buf.subarray(0, right - 1)), start: 0, bytes: right };
    }
  } finally {
    file.close();
  }
}

async function byteAt(file: Deno.FsFile, at: number): Promise<number | undefined> {
  return (await readAt(file, at, 1))[0];
}

async function readAt(file: Deno.FsFile, at: number, size: number): Promise<Uint8Array> {
  await file.seek(at, Deno.SeekMode.Start);
  const out = new Uint8Array(size);
  let read = 0;
  while (read < size) {
    const n = await file.read(out.subarray(read));
    if (n === null) break;
    read += n;
  }
  return out.subarray(0, read);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
