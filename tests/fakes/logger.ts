/** A Logger that records every line, for assertions on what was logged. */
import type { LogFields, Logger } from "../../core/ports.ts";

/** One recorded log line. */
export interface LogLine {
  level: "debug" | "info" | "warn" | "error";
  msg: string;
  fields: LogFields;
}

/** A Logger that keeps its lines in `lines` (shared with its children). */
export class MemoryLogger implements Logger {
  readonly lines: LogLine[];
  #fields: LogFields;

  constructor(lines: LogLine[] = [], fields: LogFields = {}) {
    this.lines = lines;
    this.#fields = fields;
  }

  debug(msg: string, fields?: LogFields): void {
    this.lines.push({ level: "debug", msg, fields: { ...this.#fields, ...fields } });
  }
  info(msg: string, fields?: LogFields): void {
    this.lines.push({ level: "info", msg, fields: { ...this.#fields, ...fields } });
  }
  warn(msg: string, fields?: LogFields): void {
    this.lines.push({ level: "warn", msg, fields: { ...this.#fields, ...fields } });
  }
  error(msg: string, fields?: LogFields): void {
    this.lines.push({ level: "error", msg, fields: { ...this.#fields, ...fields } });
  }
  child(fields: LogFields): Logger {
    return new MemoryLogger(this.lines, { ...this.#fields, ...fields });
  }

  /** Lines logged at `level`. */
  at(level: LogLine["level"]): LogLine[] {
    return this.lines.filter((l) => l.level === level);
  }

  /** Lines whose message equals `msg`. */
  find(msg: string): LogLine[] {
    return this.lines.filter((l) => l.msg === msg);
  }
}
