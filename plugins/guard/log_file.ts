/**
 * logs/homeagent.log: every line the daemon logs (the agent's and the guard's own), kept by the
 * guard in a file bounded in size: past `maxBytes` it is renamed to homeagent.log.1 (the older
 * ones shifting to .2 … up to `keep`, the oldest dropped) and a new file begun.
 */
import { join } from "node:path";
import { messageOf } from "./_light.ts";

/** Options of a RotatingLog. */
export interface RotatingLogOptions {
  /** The live file, e.g. `<home>/logs/homeagent.log`. */
  path: string;
  /** Size at which the file is rotated, bytes. */
  maxBytes: number;
  /** Rotated files kept beside it (homeagent.log.1 … .keep). */
  keep: number;
  /** Told once per streak of failed writes (a full disk, say); the lines still go to stderr. */
  onError(message: string): void;
}

/**
 * The size bound and kept count from HOMEAGENT_LOG_FILE_MB (0–10000, default 10) and
 * HOMEAGENT_LOG_FILE_KEEP (a whole number 0–100, default 5); undefined when the size is 0 (no
 * file). Throws RangeError naming the variable for a value out of range. (Checked by hand: the
 * guard does not load zod.)
 */
export function logFileSettings(
  env: Record<string, string | undefined>,
): { maxBytes: number; keep: number } | undefined {
  const mb = setting(env, "HOMEAGENT_LOG_FILE_MB", { max: 10_000, fallback: 10, whole: false });
  const keep = setting(env, "HOMEAGENT_LOG_FILE_KEEP", { max: 100, fallback: 5, whole: true });
  return mb === 0 ? undefined : { maxBytes: Math.round(mb * 1024 * 1024), keep };
}

function setting(
  env: Record<string, string | undefined>,
  key: string,
  rule: { max: number; fallback: number; whole: boolean },
): number {
  const text = env[key]?.trim();
  if (text === undefined || text === "") return rule.fallback;
  const value = Number(text);
  if (
    !Number.isFinite(value) || value < 0 || value > rule.max ||
    (rule.whole && !Number.isInteger(value))
  ) {
    const kind = rule.whole ? "a whole number" : "a number";
    throw new RangeError(`Cannot use ${key}="${env[key]}": expected ${kind} from 0 to ${rule.max}`);
  }
  return value;
}

const encoder = new TextEncoder();

/** Appends lines to a size-bounded, rotated file. Never throws from write(). */
export class RotatingLog implements Disposable {
  #o: RotatingLogOptions;
  #file: Deno.FsFile | undefined;
  #ino: number | null = null;
  #size = 0;
  #failing = false;

  constructor(options: RotatingLogOptions) {
    if (options.maxBytes <= 0) throw new RangeError("maxBytes must be positive");
    this.#o = options;
  }

  /** Append `line` (a newline is added), rotating first when it would pass the bound. */
  write(line: string): void {
    const bytes = encoder.encode(`${line}\n`);
    try {
      if (this.#file && this.#replaced()) {
        // `memory forget` rewrote the file (tmp + rename): go on in the new one.
        this.#file.close();
        this.#file = undefined;
      }
      if (this.#file && this.#size > 0 && this.#size + bytes.length > this.#o.maxBytes) {
        this.#rotate();
      }
      const file = this.#file ??= this.#open();
      for (let rest = bytes; rest.length > 0;) rest = rest.subarray(file.writeSync(rest));
      this.#size += bytes.length;
      this.#failing = false;
    } catch (error) {
      this.#file?.close();
      this.#file = undefined; // reopened (and its size read again) on the next line
      if (!this.#failing) {
        this.#o.onError(`Cannot write the log file "${this.#o.path}": ${messageOf(error)}`);
      }
      this.#failing = true;
    }
  }

  /** Close the file. */
  [Symbol.dispose](): void {
    this.#file?.close();
    this.#file = undefined;
  }

  #open(): Deno.FsFile {
    const file = Deno.openSync(this.#o.path, { append: true, create: true, mode: 0o600 });
    const stat = file.statSync();
    this.#size = stat.size;
    this.#ino = stat.ino;
    return file;
  }

  /** Whether the path now names another file than the one open (no inodes: never). */
  #replaced(): boolean {
    if (this.#ino === null) return false;
    try {
      return Deno.statSync(this.#o.path).ino !== this.#ino;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return true;
      throw error;
    }
  }

  #rotate(): void {
    this.#file?.close();
    this.#file = undefined;
    const { path, keep } = this.#o;
    if (keep === 0) {
      Deno.removeSync(path);
      return;
    }
    for (let i = keep - 1; i >= 1; i--) renameIfThere(`${path}.${i}`, `${path}.${i + 1}`);
    Deno.renameSync(path, `${path}.1`);
  }
}

function renameIfThere(from: string, to: string): void {
  try {
    Deno.renameSync(from, to);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** Where the guard's log lines go: stderr (the terminal or the journal) and the log file. */
export interface LogSink extends Disposable {
  /** One line, without its newline. */
  line(text: string): void;
}

/**
 * The daemon's log: each line to `stderr` and, unless HOMEAGENT_LOG_FILE_MB is 0, to
 * `<logsDir>/homeagent.log`, rotated. Throws RangeError for a bad setting in `env`.
 */
export function openLogSink(
  logsDir: string,
  env: Record<string, string | undefined>,
  stderr: (text: string) => void,
): LogSink {
  const settings = logFileSettings(env);
  const onError = (message: string) =>
    stderr(JSON.stringify({ time: new Date().toISOString(), level: "error", msg: message }) + "\n");
  const file = settings &&
    new RotatingLog({ path: join(logsDir, "homeagent.log"), ...settings, onError });
  return {
    line(text) {
      stderr(`${text}\n`);
      file?.write(text);
    },
    [Symbol.dispose]: () => file?.[Symbol.dispose](),
  };
}
