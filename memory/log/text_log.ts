/**
 * Text memory (ARCHITECTURE.md "Other Memory Layers"): the raw conversation, one JSON line per
 * turn in memory/text/, fsynced, rotated at 24 h or 10 MB into files named by their start time.
 * The rule distiller reads it back from a watermark; a torn last line (a crash mid-write) is
 * skipped with a warning, never fatal.
 */
import { join } from "node:path";
import { writeFileAtomic } from "../home.ts";
import {
  type Clock,
  type ConversationHistory,
  type ConversationPage,
  type ConversationQuery,
  type ConversationTurn,
  EPHEMERAL_META,
  errorMessage,
  type Logger,
  silentLogger,
  type StageContext,
  type StageHandler,
  type TextRedactor,
} from "../../core/mod.ts";
import { parseTurn, readHistory } from "./history.ts";
import { fileName, listLogFiles, parseStart } from "./_files.ts";

export { listLogFiles } from "./_files.ts";

/** One turn as the text log keeps it (one JSON line). */
export type TextTurn = ConversationTurn;

/** Longest message kept of one `output_send__*` call. */
const SENT_CHARS = 20_000;
/** Most tool calls kept for one turn. */
const TOOLS_KEPT = 200;
const SHARED_KEY = "text_log.turn";

/**
 * Where a reader stopped: a file of memory/text/, the byte offset after its last whole line,
 * and how many lines that is. A reader goes on by `line` when it has one: a redaction (memory
 * forget) rewrites lines in place, which moves the bytes but never the line count.
 */
export interface TextWatermark {
  file: string;
  offset: number;
  line?: number;
}

/** Options of TextLog.open. */
export interface TextLogOptions {
  /** memory/text/ */
  dir: string;
  clock: Pick<Clock, "now">;
  logger?: Logger;
  /** Rotate after this long; default 24 h. */
  maxAgeMs?: number;
  /** Rotate before a file would pass this size; default 10 MB. */
  maxBytes?: number;
  /** Blanks out forgotten names in every turn before it is written. */
  redactor?: TextRedactor;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The JSONL conversation log. Appends are serialised; each is durable when it resolves. */
export class TextLog implements ConversationHistory {
  #o: TextLogOptions;
  #logger: Logger;
  #file?: Deno.FsFile;
  #name?: string;
  #startedAt = 0;
  #size = 0;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;

  private constructor(options: TextLogOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Open the log in `dir` (created when missing); continues the newest file if it may grow. */
  static async open(options: TextLogOptions): Promise<TextLog> {
    await Deno.mkdir(options.dir, { recursive: true });
    return new TextLog(options);
  }

  /** Append one turn (fsync before resolving). Rejects on IO failure; the log stays usable. */
  append(turn: TextTurn): Promise<void> {
    if (this.#closed) return Promise.reject(new TypeError("Cannot append: the text log is closed"));
    const redactor = this.#o.redactor;
    const line = encoder.encode(
      JSON.stringify(redactor ? redactTurn(turn, redactor) : turn) + "\n",
    );
    const write = this.#writing.then(() => this.#write(line));
    this.#writing = write.catch(() => {});
    return write;
  }

  /**
   * A stage handler for `after_toolcall` (it notes the tools a turn calls and what it sends
   * through output channels) and `after_output` (it logs the turn). Consolidation turns and
   * ephemeral ones (the OpenAI-compatible endpoint unless asked to remember) are left out.
   */
  stageHandler(): StageHandler {
    return (context: StageContext) => {
      if (context.input.consolidation || context.input.meta[EPHEMERAL_META] === true) return;
      if (context.stage === "after_toolcall") return noteToolCall(context);
      if (context.stage !== "after_output") return;
      const input = context.input;
      const noted = context.shared.get(SHARED_KEY) as Noted | undefined;
      this.append({
        turnId: input.id,
        source: input.source,
        channel: input.channel,
        ...(input.sender === undefined ? {} : { sender: input.sender }),
        input: input.text,
        reply: context.output ?? "",
        inputAt: input.receivedAt,
        replyAt: this.#o.clock.now(),
        ...(context.status && context.status !== "ok" ? { status: context.status } : {}),
        ...(noted && noted.tools.length > 0 ? { tools: noted.tools } : {}),
        ...(noted && noted.sent.length > 0 ? { sent: noted.sent } : {}),
      }).catch((error) =>
        this.#logger.error("Cannot append to the text log", {
          turnId: input.id,
          error: errorMessage(error),
        })
      );
    };
  }

  /** Turns newest first, a page at a time (see readHistory). */
  async history(query: ConversationQuery = {}): Promise<ConversationPage> {
    await this.#writing;
    return await readHistory(this.#o.dir, query, this.#logger);
  }

  /** Turns after `since` (all when absent), oldest first, and the watermark after the last one. */
  async readSince(
    since?: TextWatermark,
  ): Promise<{ turns: TextTurn[]; watermark?: TextWatermark }> {
    await this.#writing;
    const files = await listLogFiles(this.#o.dir);
    const turns: TextTurn[] = [];
    let watermark = since;
    for (const file of files) {
      if (since && file < since.file) continue;
      const bytes = await Deno.readFile(join(this.#o.dir, file));
      const end = bytes.lastIndexOf(0x0a) + 1; // a trailing partial line is not read yet
      const lines = decoder.decode(bytes.subarray(0, end)).split("\n").slice(0, -1);
      const from = since && file === since.file ? startLine(since, bytes) : 0;
      if (lines.length > from) turns.push(...this.#parse(file, lines.slice(from).join("\n")));
      watermark = { file, offset: end, line: Math.max(lines.length, from) };
    }
    return { turns, watermark };
  }

  /**
   * Rewrite every file with forgotten names blanked out (each file atomically, line for line,
   * appends waiting meanwhile); resolves how many files and lines changed.
   */
  redact(redactor: TextRedactor): Promise<{ files: number; lines: number }> {
    const run = this.#writing.then(async () => {
      this.#file?.close();
      this.#file = undefined; // the next append reopens the rewritten file
      const out = { files: 0, lines: 0 };
      for (const file of await listLogFiles(this.#o.dir)) {
        const changed = await redactFile(join(this.#o.dir, file), redactor);
        if (changed > 0) out.files++;
        out.lines += changed;
      }
      return out;
    });
    this.#writing = run.then(() => {}, () => {});
    return run;
  }

  /** Wait for pending appends, then close the file. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#writing;
    this.#file?.close();
    this.#file = undefined;
  }

  async #write(line: Uint8Array): Promise<void> {
    const now = this.#o.clock.now();
    if (!this.#file) await this.#openCurrent(now);
    const tooOld = now - this.#startedAt >= (this.#o.maxAgeMs ?? 24 * 3_600_000);
    const tooBig = this.#size > 0 && this.#size + line.length > (this.#o.maxBytes ?? 10 << 20);
    if (tooOld || tooBig) await this.#rotate(now);
    let written = 0;
    while (written < line.length) written += await this.#file!.write(line.subarray(written));
    await this.#file!.syncData();
    this.#size += line.length;
  }

  /** Continue the newest file when it is young enough; else start a new one. */
  async #openCurrent(now: number): Promise<void> {
    const newest = (await listLogFiles(this.#o.dir)).at(-1);
    const startedAt = newest === undefined ? undefined : parseStart(newest);
    if (newest === undefined || startedAt === undefined) return await this.#rotate(now);
    const path = join(this.#o.dir, newest);
    this.#file = await Deno.open(path, { append: true });
    this.#name = newest;
    this.#startedAt = startedAt;
    this.#size = (await this.#file.stat()).size;
    if (this.#size > 0 && !(await endsWithNewline(path))) {
      // A crash tore the last line: end it so the next record starts clean (readers skip it).
      this.#logger.warn("Text log ends with a torn line; continuing after it", { file: newest });
      await this.#file.write(encoder.encode("\n"));
      this.#size += 1;
    }
  }

  async #rotate(now: number): Promise<void> {
    this.#file?.close();
    let name = fileName(now);
    if (name <= (this.#name ?? "")) name = fileName(parseStart(this.#name!)! + 1);
    this.#file = await Deno.open(join(this.#o.dir, name), { create: true, append: true });
    this.#name = name;
    this.#startedAt = now;
    this.#size = 0;
    this.#logger.info("Text log rotated", { file: name });
  }

  #parse(file: string, text: string): TextTurn[] {
    return text.split("\n").flatMap((line) => parseTurn(line, file, this.#logger) ?? []);
  }
}

interface Noted {
  tools: { name: string; ok: boolean }[];
  sent: { channel: string; text: string }[];
}

function noteToolCall(context: StageContext): void {
  const call = context.toolCall;
  if (!call) return;
  let noted = context.shared.get(SHARED_KEY) as Noted | undefined;
  if (!noted) context.shared.set(SHARED_KEY, noted = { tools: [], sent: [] });
  const ok = context.toolResult?.isError !== true;
  if (noted.tools.length < TOOLS_KEPT) noted.tools.push({ name: call.call.name, ok });
  const channel = /^output_send__([a-z0-9_]+)$/.exec(call.call.name)?.[1];
  if (channel && ok && typeof call.args.payload === "string" && noted.sent.length < TOOLS_KEPT) {
    noted.sent.push({ channel, text: call.args.payload.slice(0, SENT_CHARS) });
  }
}

async function endsWithNewline(path: string): Promise<boolean> {
  const file = await Deno.open(path, { read: true });
  try {
    const size = (await file.stat()).size;
    if (size === 0) return true;
    await file.seek(size - 1, Deno.SeekMode.Start);
    const one = new Uint8Array(1);
    await file.read(one);
    return one[0] === 0x0a;
  } finally {
    file.close();
  }
}

/** `turn` with forgotten names blanked out of its words and its sender; itself when clean. */
function redactTurn(turn: TextTurn, redactor: TextRedactor): TextTurn {
  const fields = ["input", "reply", "sender"] as const;
  const dirty = fields.filter((f) => typeof turn[f] === "string" && redactor.mentions(turn[f]));
  if (dirty.length === 0) return turn;
  const next = { ...turn };
  for (const f of dirty) next[f] = redactor.redact(turn[f]!);
  return next;
}

/** Rewrite one log file with its turns redacted, line for line; resolves the lines changed. */
async function redactFile(path: string, redactor: TextRedactor): Promise<number> {
  const lines = (await Deno.readTextFile(path)).split("\n");
  let changed = 0;
  const out = lines.map((line) => {
    if (line.trim() === "") return line;
    let turn: TextTurn;
    try {
      turn = JSON.parse(line) as TextTurn;
    } catch {
      // A torn line: no name stays in it either.
      if (!redactor.mentions(line)) return line;
      changed++;
      return redactor.redact(line);
    }
    const next = redactTurn(turn, redactor);
    if (next === turn) return line;
    changed++;
    return JSON.stringify(next);
  });
  if (changed > 0) await writeFileAtomic(path, out.join("\n"));
  return changed;
}

/** The line a reader goes on from: `since.line`, or (an older watermark) the lines before its offset. */
function startLine(since: TextWatermark, bytes: Uint8Array): number {
  if (since.line !== undefined) return since.line;
  let count = 0;
  for (let i = 0; i < Math.min(since.offset, bytes.length); i++) if (bytes[i] === 0x0a) count++;
  return count;
}
