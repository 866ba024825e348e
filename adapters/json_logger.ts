/** A Logger that writes one JSON object per line to stderr. */
import type { LogFields, Logger } from "../core/mod.ts";

/** Log levels in increasing severity. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const encoder = new TextEncoder();

/** Options of createJsonLogger. */
export interface JsonLoggerOptions {
  level?: LogLevel;
  /** Where lines go; stderr by default. */
  write?: (line: string) => void;
  fields?: LogFields;
}

/** A JSON-lines logger: `{"time","level","msg",...fields}`. */
export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const min = RANK[options.level ?? "info"];
  const write = options.write ?? writeStderr;
  const base = options.fields ?? {};
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (RANK[level] < min) return;
    const record = { time: new Date().toISOString(), level, msg, ...base, ...fields };
    write(JSON.stringify(record, replacer) + "\n");
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    child: (fields) => createJsonLogger({ ...options, fields: { ...base, ...fields } }),
  };
}

/**
 * Write `text` to stderr whole. A closed stderr (the guard that read it is gone) drops the
 * line: there is nowhere left to report it, and a log call must never throw into its caller.
 */
export function writeStderr(text: string): void {
  let bytes = encoder.encode(text);
  try {
    while (bytes.length > 0) bytes = bytes.subarray(Deno.stderr.writeSync(bytes));
  } catch (error) {
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
  }
}

function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (typeof value === "bigint") return value.toString();
  return value;
}

/** Parse a level name, falling back to "info" for anything unknown. */
export function parseLogLevel(text: string | undefined): LogLevel {
  return text === "debug" || text === "warn" || text === "error" ? text : "info";
}
