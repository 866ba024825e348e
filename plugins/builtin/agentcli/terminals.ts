/**
 * The terminals of one agent: a bounded set, ids, idle clean-up, and the "[terminal X has new
 * output]" notices at L3 — at most one in flight per terminal, none sooner than the throttle
 * after the output began, and none while a turn that used the terminal is still running (that
 * turn reads it itself; notices are for output that arrives when nobody is looking).
 */
import {
  type Clock,
  errorMessage,
  HomeAgentError,
  type Logger,
  type TimerHandle,
} from "../../../core/mod.ts";
import { Terminal, type TerminalInfo } from "./terminal.ts";
import type { SpawnPty } from "./pty.ts";

/** Throttle of new-output notices per terminal. */
export const NOTICE_THROTTLE_MS = 500;
/** How often idle terminals are looked for. */
export const SWEEP_MS = 30_000;
/** Characters of output a notice previews. */
export const PREVIEW_CHARS = 100;
/** How long a hung-up terminal gets before its session is killed. */
const CLOSE_GRACE_MS = 1000;

/** What a new-output notice is sent through; resolves with the input id, or undefined when refused. */
export type NoticeSink = (terminal: string, text: string) => string | undefined;

/** Options of a TerminalSet. */
export interface TerminalSetOptions {
  clock: Clock;
  logger: Logger;
  spawn: () => Promise<SpawnPty>;
  maxTerminals: () => number;
  notify: () => boolean;
  sendNotice: NoticeSink;
}

/** What terminal_create asks for. */
export interface CreateRequest {
  file: string;
  args: string[];
  command: string;
  rows: number;
  cols: number;
  cwd: string;
  env: Record<string, string>;
  idleTimeoutMs: number;
}

interface Slot {
  terminal: Terminal;
  idleTimeoutMs: number;
  timer?: TimerHandle;
  /** Input id of the notice whose turn has not ended. */
  inFlight?: string;
  /** The running turn that last used this terminal. */
  holder?: string;
  /** Output offset up to which a notice has told of it (only newer output is news). */
  noticedTo: number;
  /** Tool calls on this terminal now running. */
  busy: number;
}

/** The live terminals. */
export class TerminalSet {
  #options: TerminalSetOptions;
  #slots = new Map<string, Slot>();
  #next = 1;
  #sweep?: TimerHandle;
  #closed = false;

  constructor(options: TerminalSetOptions) {
    this.#options = options;
    this.#armSweep();
  }

  /**
   * Start a terminal for turn `turnId` (its notices wait until that turn ends). Throws
   * HomeAgentError when the set is full or the program cannot start.
   */
  async create(request: CreateRequest, turnId?: string): Promise<Terminal> {
    const max = this.#options.maxTerminals();
    if (this.#slots.size >= max) {
      throw new HomeAgentError(
        "terminals_full",
        `Cannot open a terminal: ${max} are open (plugin.agentcli.max_terminals); close one with terminal_close`,
      );
    }
    const spawn = await this.#options.spawn();
    const id = `t${this.#next++}`;
    const proc = (() => {
      try {
        return spawn(request.file, request.args, request);
      } catch (error) {
        throw new HomeAgentError(
          "terminal_start",
          `Cannot start "${request.command}": ${errorMessage(error)}`,
          { cause: error },
        );
      }
    })();
    const terminal = new Terminal(proc, {
      id,
      command: request.command,
      rows: request.rows,
      cols: request.cols,
      now: () => this.#options.clock.now(),
      logger: this.#options.logger,
      onOutput: () => this.#outputArrived(id),
      onExit: (t) => this.#options.logger.info("Terminal exited", { terminal: id, exit: t.exit }),
    });
    this.#slots.set(id, {
      terminal,
      idleTimeoutMs: request.idleTimeoutMs,
      busy: 0,
      noticedTo: 0,
      ...(turnId !== undefined ? { holder: turnId } : {}),
    });
    this.#options.logger.info("Terminal started", { terminal: id, command: request.command });
    return terminal;
  }

  /** The terminal `id`. Throws HomeAgentError naming the open ones when unknown. */
  get(id: string): Terminal {
    const slot = this.#slots.get(id);
    if (!slot) {
      const open = [...this.#slots.keys()].join(", ") || "none";
      throw new HomeAgentError("terminal_not_found", `No terminal "${id}" (open: ${open})`);
    }
    return slot.terminal;
  }

  /** Run `fn` on terminal `id` for turn `turnId`; its notices wait until that turn ends. */
  async using<T>(
    id: string,
    turnId: string,
    fn: (terminal: Terminal) => T | Promise<T>,
  ): Promise<T> {
    const terminal = this.get(id);
    const slot = this.#slots.get(id)!;
    slot.busy++;
    slot.holder = turnId;
    try {
      return await fn(terminal);
    } finally {
      slot.busy--;
    }
  }

  list(): TerminalInfo[] {
    return [...this.#slots.values()].map((s) => s.terminal.info());
  }

  /** Close and forget terminal `id`. */
  async close(id: string): Promise<TerminalInfo> {
    const terminal = this.get(id);
    const slot = this.#slots.get(id)!;
    this.#slots.delete(id);
    slot.timer?.cancel();
    await terminal.close(CLOSE_GRACE_MS, this.#options.clock);
    this.#options.logger.info("Terminal closed", { terminal: id });
    return terminal.info();
  }

  /** Turn `turnId` ended (its `output` event): a notice may follow it, or the next one. */
  turnEnded(turnId: string): void {
    for (const [id, slot] of this.#slots) {
      if (slot.inFlight === turnId) slot.inFlight = undefined;
      if (slot.holder === turnId) slot.holder = undefined;
      if (this.#news(slot)) this.#outputArrived(id);
    }
  }

  /** Close every terminal and stop the sweep. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    this.#sweep?.cancel();
    await Promise.all([...this.#slots.keys()].map((id) => this.close(id)));
  }

  /** Close terminals idle past their timeout; returns their ids. */
  async sweep(): Promise<string[]> {
    const now = this.#options.clock.now();
    const idle = [...this.#slots].filter(([, s]) =>
      s.busy === 0 && now - s.terminal.lastActivityAt >= s.idleTimeoutMs
    ).map(([id]) => id);
    for (const id of idle) {
      if (!this.#slots.has(id)) continue; // closed meanwhile
      this.#options.logger.info("Closing an idle terminal", { terminal: id });
      await this.close(id);
    }
    return idle;
  }

  #armSweep(): void {
    if (this.#closed) return;
    this.#sweep = this.#options.clock.setTimer(SWEEP_MS, () => {
      this.#armSweep();
      void this.sweep().catch((error) =>
        this.#options.logger.error("Terminal sweep failed", { error: errorMessage(error) })
      );
    });
  }

  /** Unread output the last notice did not tell of. */
  #news(slot: Slot): boolean {
    return slot.terminal.unread > 0 && slot.terminal.output.end > slot.noticedTo;
  }

  #outputArrived(id: string): void {
    const slot = this.#slots.get(id);
    if (!slot || slot.timer || slot.inFlight || slot.holder || !this.#options.notify()) return;
    slot.timer = this.#options.clock.setTimer(NOTICE_THROTTLE_MS, () => {
      slot.timer = undefined;
      if (!this.#slots.has(id) || slot.inFlight || slot.holder) return; // its end looks again
      if (!this.#news(slot)) return;
      const preview = previewOf(slot.terminal.peekUnread());
      if (preview === undefined) return;
      slot.noticedTo = slot.terminal.output.end;
      slot.inFlight = this.#options.sendNotice(id, `[terminal ${id} has new output] ${preview}`);
    });
  }
}

/** The last PREVIEW_CHARS characters of `text` on one line, or undefined when it is blank. */
function previewOf(text: string): string | undefined {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return undefined;
  return flat.length > PREVIEW_CHARS ? `…${flat.slice(-PREVIEW_CHARS)}` : flat;
}
