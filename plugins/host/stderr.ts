/**
 * A plugin's stderr, re-logged line by line with the plugin's name under a LogBudget: a line
 * that is a JSON `{level, msg, ...}` object keeps its level and fields, any other is logged as
 * text, a line longer than the bound is cut, and a flood beyond the budget is counted, not
 * decoded, and reported as one line per interval.
 */
import type { Logger } from "../../core/mod.ts";
import { type LogBudget } from "./limits.ts";

const NEWLINE = 10;
const LEVELS = new Set(["debug", "info", "warn", "error"]);

/** Options of a StderrRelay. */
export interface StderrRelayOptions {
  logger: Logger;
  budget: LogBudget;
  /** Longest line logged, bytes; the rest of a longer line is dropped. */
  maxLineBytes: number;
}

/** Splits stderr bytes into lines and re-logs those the budget allows. */
export class StderrRelay {
  #options: StderrRelayOptions;
  #decoder = new TextDecoder();
  #parts: Uint8Array[] = [];
  #kept = 0;
  #seen = 0;

  constructor(options: StderrRelayOptions) {
    this.#options = options;
  }

  /** Feed one chunk read from stderr. */
  push(chunk: Uint8Array): void {
    let start = 0;
    for (let cut = chunk.indexOf(NEWLINE); cut >= 0; cut = chunk.indexOf(NEWLINE, start)) {
      this.#keep(chunk.subarray(start, cut));
      this.#end();
      start = cut + 1;
    }
    if (start < chunk.length) this.#keep(chunk.slice(start)); // copy: the reader reuses buffers
  }

  /** stderr closed: log what is left of the last line. */
  close(): void {
    this.#end();
  }

  #keep(part: Uint8Array): void {
    this.#seen += part.length;
    const room = this.#options.maxLineBytes - this.#kept;
    if (room <= 0 || part.length === 0) return;
    const piece = part.length > room ? part.subarray(0, room) : part;
    this.#parts.push(piece);
    this.#kept += piece.length;
  }

  #end(): void {
    const { seen, kept, parts } = { seen: this.#seen, kept: this.#kept, parts: this.#parts };
    this.#parts = [];
    this.#kept = 0;
    this.#seen = 0;
    if (seen === 0 || !this.#options.budget.take()) return;
    let line = "";
    for (const part of parts) line += this.#decoder.decode(part, { stream: true });
    line += this.#decoder.decode();
    if (line.trim() === "") return;
    if (seen > kept) {
      this.#options.logger.info(line, { stream: "stderr", cutBytes: seen - kept });
    } else relog(this.#options.logger, line);
  }
}

/** Re-log one stderr line: a JSON `{level, msg, ...}` line keeps its level and fields. */
function relog(logger: Logger, line: string): void {
  try {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (typeof parsed.msg === "string") {
      const { level, msg, ...fields } = parsed;
      delete fields.plugin; // the host names the plugin; a line may not claim another's name
      const lvl = typeof level === "string" && LEVELS.has(level) ? level : "info";
      logger[lvl as "info"](msg, { ...fields, stream: "stderr" });
      return;
    }
  } catch {
    // plain text
  }
  logger.info(line, { stream: "stderr" });
}
