/**
 * The interactive `homeagent chat` REPL: type to talk, `/stop` stops the reply, Ctrl-D leaves.
 * In a terminal, lines are edited with node:readline (history, cursor keys, wide characters)
 * and the screen keeps the person's typing apart from the streaming reply; piped stdin is read
 * line by line, and every reply is waited for before the REPL ends.
 */
import process from "node:process";
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { HomeAgentError } from "../../../core/mod.ts";
import type { CliClient } from "./client.ts";
import { readLines } from "./protocol.ts";
import { FrameRenderer, ReplScreen } from "./repl_screen.ts";

const encoder = new TextEncoder();

/** Terminal streams the REPL reads and writes; injectable for tests. */
export interface ReplIo {
  /** Piped input, read line by line (not touched when `terminal` is set). */
  stdin(): ReadableStream<Uint8Array>;
  write(text: string): void;
  error(text: string): void;
  /** The terminal, when stdin is one: lines are edited there. */
  terminal?: { input: Readable; output: Writable };
}

/** The process's own terminal. */
export function processIo(): ReplIo {
  return {
    stdin: () => Deno.stdin.readable,
    write: (text) => void Deno.stdout.writeSync(encoder.encode(text)),
    error: (text) => void Deno.stderr.writeSync(encoder.encode(text)),
    terminal: Deno.stdin.isTerminal() && Deno.stdout.isTerminal()
      ? { input: process.stdin, output: process.stdout }
      : undefined,
  };
}

const HELP = "Type a message and press Enter. /stop (or Ctrl-C) stops the current reply; " +
  "/yes or /no answers a question; //… sends a line that starts with /; /exit or Ctrl-D leaves.";

/** A line that looks like a command (`/stpo`): a typo is told, not sent to the model. */
const COMMAND_LIKE = /^\/[a-z][a-z-]*$/i;

/** Run the REPL until stdin ends or the person leaves; returns the exit code. */
export async function runRepl(client: CliClient, io: ReplIo): Promise<number> {
  return io.terminal ? await terminalRepl(client, io, io.terminal) : await pipedRepl(client, io);
}

/** One conversation over the socket: what is in flight, and the frames shown as they come. */
class Session {
  #client: CliClient;
  #screen: ReplScreen;
  #busy = 0;
  #idle = Promise.withResolvers<void>();
  /** Questions plugins asked that wait for an answer, oldest first. */
  #questions: string[] = [];
  /** Resolves when the daemon closes the connection (or the client is closed). */
  readonly frames: Promise<void>;

  constructor(client: CliClient, screen: ReplScreen, onIdle: () => void) {
    this.#client = client;
    this.#screen = screen;
    const renderer = new FrameRenderer(screen);
    this.frames = (async () => {
      for (let frame = await client.next(); frame; frame = await client.next()) {
        if (frame.type === "question") this.#questions.push(frame.id);
        if (frame.type === "answered") {
          this.#questions = this.#questions.filter((id) => id !== frame.id);
        }
        if (renderer.render(frame) === "reply") this.#busy = Math.max(0, this.#busy - 1);
        if (this.#busy === 0) {
          this.#idle.resolve();
          onIdle();
        }
      }
    })().catch(() => {}); // a connection closed under the read ends the session the same way
  }

  get busy(): boolean {
    return this.#busy > 0;
  }

  /** Resolves when no reply is outstanding. */
  idle(): Promise<void> {
    return this.#busy === 0 ? Promise.resolve() : this.#idle.promise;
  }

  /** Act on one line the person entered; "exit" when it asks to leave. */
  async command(raw: string): Promise<"exit" | undefined> {
    const line = raw.trim();
    if (line === "/exit" || line === "/quit") return "exit";
    if (line === "/help") this.#screen.line(HELP);
    else if (line === "/stop") await this.#client.send({ type: "stop" });
    else if (isAnswer(line, this.#questions.length > 0)) {
      const id = this.#questions[0];
      if (id === undefined) this.#screen.line("No question is waiting.", true);
      else await this.#client.send({ type: "answer", id, approve: /^\/?y(es)?$/i.test(line) });
    } else if (COMMAND_LIKE.test(line)) {
      this.#screen.line(
        `Unknown command ${line}; /help lists them (//… sends it as a message)`,
        true,
      );
    } else if (line !== "") {
      if (this.#busy++ === 0) this.#idle = Promise.withResolvers<void>();
      await this.#client.send({ type: "chat", text: line.startsWith("//") ? line.slice(1) : line });
    }
    return undefined;
  }
}

const gone = () =>
  new HomeAgentError("daemon_gone", "The daemon closed the connection (was it stopped?)");

async function pipedRepl(client: CliClient, io: ReplIo): Promise<number> {
  const screen = new ReplScreen({ out: io.write, err: io.error });
  const session = new Session(client, screen, () => {});
  const ended = session.frames.then(() => "gone" as const);
  const lines = readLines(io.stdin());
  let how: "gone" | "eof" = "eof";
  for (;;) {
    const next = await Promise.race([lines.next(), ended]);
    if (next === "gone") how = "gone";
    if (next === "gone" || next.done || (await session.command(next.value)) === "exit") break;
  }
  // Stdin ended (or /exit): let the replies still streaming finish first.
  if (how === "eof") how = await Promise.race([session.idle().then(() => how), ended]);
  client.close();
  await session.frames;
  screen.close();
  if (how === "gone") throw gone();
  return 0;
}

async function terminalRepl(
  client: CliClient,
  io: ReplIo,
  terminal: { input: Readable; output: Writable },
): Promise<number> {
  const rl = createInterface({ ...terminal, terminal: true, prompt: "> ", historySize: 200 });
  const screen = new ReplScreen(
    { out: (text) => void terminal.output.write(text), err: io.error },
    { typed: () => rl.line, show: () => rl.prompt(true) },
  );
  const session = new Session(client, screen, () => screen.prompt());
  const done = Promise.withResolvers<"exit" | "eof" | "gone">();
  session.frames.then(() => done.resolve("gone"));
  // Typing while a reply streams: the prompt first, so the typed text gets a line of its own.
  terminal.input.prependListener("keypress", (text: unknown, key: KeyInfo | undefined) => {
    if (!screen.promptShown && insertsText(text, key)) screen.prompt();
  });
  rl.on("line", async (line: string) => {
    screen.submitted();
    if ((await session.command(line)) === "exit") done.resolve("exit");
    else if (!session.busy) screen.prompt();
  });
  rl.on("SIGINT", () => interrupt(rl, session, screen));
  rl.on("SIGTSTP", () => {}); // no job control: suspending would leave the socket hanging
  rl.on("close", () => done.resolve("eof"));
  screen.line(HELP);
  screen.prompt();
  const how = await done.promise;
  rl.close();
  screen.close();
  client.close();
  await session.frames;
  if (how === "gone") throw gone();
  return 0;
}

/** Ctrl-C: clears what is typed, else stops the reply, else says how to leave. */
function interrupt(rl: Interface, session: Session, screen: ReplScreen): void {
  if (rl.line !== "") {
    rl.write(null, { ctrl: true, name: "e" });
    rl.write(null, { ctrl: true, name: "u" });
  } else if (session.busy) void session.command("/stop");
  else {
    screen.leavePrompt();
    screen.line("(Ctrl-D or /exit leaves)");
    screen.prompt();
  }
}

interface KeyInfo {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
}

function insertsText(text: unknown, key: KeyInfo | undefined): boolean {
  if (key?.ctrl || key?.meta) return false;
  return typeof text === "string" && text !== "" &&
    [...text].every((c) => c.codePointAt(0)! >= 0x20 && c !== "\x7f");
}

/** `/yes` and `/no` always; plain y, yes, n, no while a question waits. */
function isAnswer(line: string, waiting: boolean): boolean {
  return /^\/(yes|no)$/i.test(line) || (waiting && /^(y|yes|n|no)$/i.test(line));
}
