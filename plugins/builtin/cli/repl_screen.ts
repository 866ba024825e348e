/**
 * What the REPL shows, kept in one place so replies, tool lines and the person's typing never
 * run into each other: the screen knows whether the cursor is at the start of a line, and
 * while the person is typing (a terminal) it holds the daemon's output until they press Enter,
 * so what they type — `/stop` included — stands on its own line.
 */
import type { ServerFrame } from "./protocol.ts";

/** Where text goes: the reply on stdout, tool lines and errors on stderr. */
export interface ScreenOutput {
  out(text: string): void;
  err(text: string): void;
}

/** The line being edited in a terminal (readline's), if any. */
export interface LineInput {
  /** What the person has typed on the current line. */
  typed(): string;
  /** Draw the prompt and the typed text on a line of their own. */
  show(): void;
}

/** The REPL's screen: stream text, whole lines, the prompt. */
export class ReplScreen {
  #output: ScreenOutput;
  #input: LineInput | undefined;
  #atLineStart = true;
  #promptShown = false;
  #held: (() => void)[] = [];

  constructor(output: ScreenOutput, input?: LineInput) {
    this.#output = output;
    this.#input = input;
  }

  /** Stream text, as it comes (held while the person is typing). */
  print(text: string, err = false): void {
    if (text === "") return;
    if (this.#holding()) return void this.#held.push(() => this.print(text, err));
    this.#replayHeld();
    if (this.#promptShown) {
      this.#output.out("\r\x1b[K"); // an empty prompt gives way to the output
      this.#promptShown = false;
    }
    if (err) this.#output.err(text);
    else this.#output.out(text);
    this.#atLineStart = text.endsWith("\n");
  }

  /** `text` on a line of its own. */
  line(text: string, err = false): void {
    if (this.#holding()) return void this.#held.push(() => this.line(text, err));
    this.#replayHeld();
    this.endLine();
    this.print(`${text}\n`, err);
  }

  /** Finish the current line, if anything is on it. */
  endLine(): void {
    if (this.#holding()) return void this.#held.push(() => this.endLine());
    this.#replayHeld();
    if (!this.#atLineStart && !this.#promptShown) this.print("\n");
  }

  /** Show the prompt (idle, or the person starts typing while a reply streams). */
  prompt(): void {
    if (!this.#input || this.#promptShown) return;
    if (!this.#atLineStart) this.print("\n");
    this.#input.show();
    this.#promptShown = true;
    this.#atLineStart = false;
  }

  /** Whether a prompt line is on screen. */
  get promptShown(): boolean {
    return this.#promptShown;
  }

  /** The person pressed Enter (readline moved to a new line): show what was held. */
  submitted(): void {
    this.#promptShown = false;
    this.#atLineStart = true;
    this.#replayHeld();
  }

  #replayHeld(): void {
    const held = this.#held;
    this.#held = [];
    for (const replay of held) replay();
  }

  #holding(): boolean {
    return this.#promptShown && this.#input!.typed() !== "";
  }

  /** Leaving: end the last line so the shell's prompt starts on its own. */
  close(): void {
    this.leavePrompt();
    this.endLine();
  }

  /** Move off a prompt line left as it is (nothing was entered on it). */
  leavePrompt(): void {
    if (!this.#promptShown) return;
    this.#output.out("\n");
    this.submitted();
  }
}

/** What a frame means for the REPL's bookkeeping. */
export type FrameOutcome = "reply" | "other";

/** Renders the daemon's frames on a screen. */
export class FrameRenderer {
  #screen: ReplScreen;
  #streamed = false;

  constructor(screen: ReplScreen) {
    this.#screen = screen;
  }

  /** Show one frame; says whether it was the terminal reply of a message. */
  render(frame: ServerFrame): FrameOutcome {
    const screen = this.#screen;
    switch (frame.type) {
      case "delta":
        if (frame.reset && this.#streamed) screen.line("[source changed; reply restarted]");
        if (frame.text) {
          screen.print(frame.text);
          this.#streamed = true;
        }
        return "other";
      case "tool":
        if (frame.phase === "start") screen.line(`[tool ${frame.name}]`, true);
        return "other";
      case "message":
        screen.line(frame.text);
        return "other";
      case "reply":
        this.#reply(frame);
        return "reply";
      case "stopped":
        if (!frame.wasRunning && frame.queued + frame.suspended === 0) {
          screen.line("Nothing to stop.", true);
        }
        return "other";
      case "error":
        screen.line(frame.message, true);
        return "other";
      case "question":
        screen.line(`[${frame.plugin} asks] ${frame.title}`);
        if (frame.detail) screen.line(frame.detail);
        screen.line("Answer /yes or /no.");
        return "other";
      case "answered":
        screen.line(`[${frame.answer}]`, true);
        return "other";
      default:
        return "other";
    }
  }

  #reply(frame: Extract<ServerFrame, { type: "reply" }>): void {
    const screen = this.#screen;
    if (frame.status === "stopped") screen.line("[stopped]");
    else if (frame.status === "ok" || frame.status === "short_circuit") {
      if (this.#streamed) screen.endLine();
      else screen.line(frame.text);
    } else screen.line(frame.text, true);
    this.#streamed = false;
  }
}
