/**
 * Run `main.ts ARGS` on a real pseudo-terminal (util-linux `script`), so stdin.isTerminal()
 * holds and readline edits lines as it does for a person: keys go in as bytes, the screen
 * comes back with the terminal's echo and escape sequences.
 */
import { QUIET_ENV } from "./daemon.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
/** Terminal control sequences (cursor moves, line clears): ESC [ params letter. */
const CSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, "g");

/** Whether `script` is here (bsdutils on Debian). */
export const hasScript = (() => {
  try {
    return new Deno.Command("script", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
})();

/** A program on a terminal. */
export interface TerminalSession extends AsyncDisposable {
  /** Type `keys` (raw bytes: "\r" is Enter, "\x03" Ctrl-C, "\x04" Ctrl-D). */
  type(keys: string): Promise<void>;
  /** Wait until the screen text (escapes removed) after `from` matches `pattern`. */
  waitFor(pattern: RegExp, options?: { from?: number; timeoutMs?: number }): Promise<number>;
  /** The screen so far, escape sequences and carriage returns removed. */
  screen(): string;
  /** The program's exit code. */
  exit(): Promise<number>;
}

/** Start `main.ts ARGS` on a terminal of its own. */
export function runInTerminal(args: string[], env: Record<string, string> = {}): TerminalSession {
  const quoted = [Deno.execPath(), "run", "--allow-all", "--quiet", MAIN, ...args]
    .map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  const child = new Deno.Command("script", {
    args: ["--quiet", "--return", "--command", quoted, "/dev/null"],
    env: { ...QUIET_ENV, TERM: "xterm", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  let raw = "";
  const changed = new Set<() => void>();
  const reading = (async () => {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      raw += chunk;
      for (const wake of changed) wake();
    }
  })();
  const stderr = new Response(child.stderr).text();
  const screen = () => raw.replace(CSI, "").replaceAll("\r", "");
  const done = (async () => {
    const status = await child.status;
    await reading;
    for (const wake of changed) wake();
    return status.code;
  })();
  let finished = false;
  done.then(() => finished = true);
  let killed = false;
  const kill = () => {
    if (finished || killed) return;
    killed = true;
    child.kill("SIGKILL");
  };
  return {
    type: (keys) => writer.write(new TextEncoder().encode(keys)),
    screen,
    async waitFor(pattern, options = {}) {
      const from = options.from ?? 0;
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        for (const wake of changed) wake();
      }, options.timeoutMs ?? 15_000);
      try {
        for (;;) {
          const match = pattern.exec(screen().slice(from));
          if (match) return from + match.index + match[0].length;
          if (finished || late) {
            // stderr ends only with the program: stop it first, or a miss hangs the test.
            kill();
            throw new Error(`The screen never showed ${pattern}:\n${screen()}\n${await stderr}`);
          }
          await new Promise<void>((resolve) => {
            const wake = () => {
              changed.delete(wake);
              resolve();
            };
            changed.add(wake);
          });
        }
      } finally {
        clearTimeout(timer);
      }
    },
    async exit() {
      const code = await done;
      await writer.close().catch(() => {});
      await stderr;
      return code;
    },
    async [Symbol.asyncDispose]() {
      kill();
      await this.exit();
    },
  };
}
