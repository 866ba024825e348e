/**
 * One terminal: a process on a pseudo-terminal, its bounded output, the model's read cursor,
 * and an end that takes the whole session with it (a shell's background jobs included).
 */
import { type Clock, errorMessage, HomeAgentError, type Logger, sleep } from "../../../core/mod.ts";
import { cleanOutput, OutputRing, type OutputSlice } from "./output.ts";
import type { PtyProcess } from "./pty.ts";

/** Bytes of output kept per terminal. */
export const OUTPUT_BYTES = 128 * 1024;

/** How a terminal's process ended. */
export interface TerminalExit {
  code: number;
  signal?: number;
}

/** A terminal as terminal_list and the web view show it. */
export interface TerminalInfo {
  id: string;
  command: string;
  pid: number;
  rows: number;
  cols: number;
  createdAt: number;
  lastActivityAt: number;
  /** Output bytes the model has not read. */
  unread: number;
  exit?: TerminalExit;
}

/** Options of a Terminal. */
export interface TerminalOptions {
  id: string;
  command: string;
  rows: number;
  cols: number;
  now: () => number;
  logger: Logger;
  /** Called after each chunk of output (the set schedules notices from it). */
  onOutput(terminal: Terminal): void;
  onExit(terminal: Terminal): void;
}

/** A running (or finished) terminal. */
export class Terminal {
  readonly id: string;
  readonly command: string;
  readonly createdAt: number;
  readonly output = new OutputRing(OUTPUT_BYTES);
  rows: number;
  cols: number;
  lastActivityAt: number;
  exit?: TerminalExit;
  #proc: PtyProcess;
  #options: TerminalOptions;
  #readTo = 0;
  #exited = Promise.withResolvers<void>();

  constructor(proc: PtyProcess, options: TerminalOptions) {
    this.#proc = proc;
    this.#options = options;
    this.id = options.id;
    this.command = options.command;
    this.rows = options.rows;
    this.cols = options.cols;
    this.createdAt = this.lastActivityAt = options.now();
    proc.onData((data) => {
      this.output.push(data);
      this.lastActivityAt = options.now();
      options.onOutput(this);
    });
    proc.onExit((exit) => {
      this.exit = exit;
      this.lastActivityAt = options.now();
      this.#exited.resolve();
      options.onExit(this);
    });
  }

  get pid(): number {
    return this.#proc.pid;
  }

  /** Output bytes after the model's cursor. */
  get unread(): number {
    return this.output.end - Math.max(this.#readTo, this.output.start);
  }

  /** Type `data` into the terminal. Throws when it has exited. */
  write(data: string): void {
    this.#alive("write to");
    this.#proc.write(data);
    this.lastActivityAt = this.#options.now();
  }

  /** Change the window size; the program gets SIGWINCH. */
  resize(rows: number, cols: number): void {
    this.#alive("resize");
    this.#proc.resize(cols, rows);
    this.rows = rows;
    this.cols = cols;
    this.lastActivityAt = this.#options.now();
  }

  /** Unread output (clear: and mark it read), else the whole buffer, as text for the model. */
  read(clear: boolean): OutputSlice & { clean: string } {
    const slice = this.output.since(clear ? this.#readTo : this.output.start);
    if (clear) this.#readTo = slice.to;
    this.lastActivityAt = this.#options.now();
    return { ...slice, clean: cleanOutput(slice.text) };
  }

  /** Unread output as text, leaving the cursor where it is. */
  peekUnread(): string {
    return cleanOutput(this.output.since(this.#readTo).text);
  }

  /** Raw output from absolute offset `from` (for the web view). */
  raw(from: number): OutputSlice {
    return this.output.since(from);
  }

  info(): TerminalInfo {
    return {
      id: this.id,
      command: this.command,
      pid: this.pid,
      rows: this.rows,
      cols: this.cols,
      createdAt: this.createdAt,
      lastActivityAt: this.lastActivityAt,
      unread: this.unread,
      ...(this.exit ? { exit: this.exit } : {}),
    };
  }

  /**
   * End the terminal: SIGHUP, as a closed window does, then SIGKILL to every process left in
   * its session after `graceMs` (a shell's background jobs survive a hang-up).
   */
  async close(graceMs: number, clock: Clock): Promise<void> {
    const sid = this.pid;
    if (!this.exit) this.#signal(() => this.#proc.kill("SIGHUP"));
    await this.#exitedWithin(graceMs, clock);
    const deadline = clock.monotonic() + graceMs;
    for (;;) {
      const left = await sessionMembers(sid);
      if (!this.exit) left.unshift(sid);
      if (left.length === 0 || clock.monotonic() >= deadline) break;
      for (const pid of left) this.#signal(() => Deno.kill(pid, "SIGKILL"));
      await sleep(clock, 50);
    }
  }

  async #exitedWithin(ms: number, clock: Clock): Promise<void> {
    const done = new AbortController();
    await Promise.race([
      this.#exited.promise,
      sleep(clock, ms, done.signal).catch(() => {}),
    ]);
    done.abort();
  }

  #signal(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        this.#options.logger.debug("Terminal signal failed", {
          terminal: this.id,
          error: errorMessage(error),
        });
      }
    }
  }

  #alive(verb: string): void {
    if (this.exit) {
      throw new HomeAgentError(
        "terminal_exited",
        `Cannot ${verb} terminal "${this.id}": it exited with code ${this.exit.code}`,
      );
    }
  }
}

/** Pids in session `sid` other than the leader (Linux /proc; elsewhere none are found). */
async function sessionMembers(sid: number): Promise<number[]> {
  const found: number[] = [];
  try {
    for await (const entry of Deno.readDir("/proc")) {
      if (!/^\d+$/.test(entry.name) || Number(entry.name) === sid) continue;
      const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`).catch(() => "");
      // pid (comm) state ppid pgrp session …; comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[3]) === sid && fields[0] !== "Z") found.push(Number(entry.name));
    }
  } catch {
    // no /proc: the hang-up and the leader's kill are all we can do
  }
  return found;
}
