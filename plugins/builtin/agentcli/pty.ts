/**
 * Pseudo-terminals: the port the terminals use, and its implementation over @lydell/node-pty
 * (node-pty's prebuilt Node-API binding; under Deno it needs --allow-ffi to load). A real PTY,
 * so line editing, job control and ctrl-c reach the program as they would from a person.
 */
import { HomeAgentError } from "../../../core/mod.ts";

/** A process on a pseudo-terminal; its session leader's pid is also its process group. */
export interface PtyProcess {
  readonly pid: number;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Send `signal` (default SIGHUP, as a closed terminal does) to the process. */
  kill(signal?: Deno.Signal): void;
  onData(listener: (data: string) => void): void;
  onExit(listener: (exit: { code: number; signal?: number }) => void): void;
}

/** How to start a process on a pseudo-terminal. */
export interface PtySpawnOptions {
  cols: number;
  rows: number;
  cwd: string;
  env: Record<string, string>;
}

/** Start `file` with `args` on a new pseudo-terminal. Throws when the program cannot start. */
export type SpawnPty = (file: string, args: string[], options: PtySpawnOptions) => PtyProcess;

/** node-pty, loaded on first use so a daemon without the binding still starts. */
export async function loadNodePty(): Promise<SpawnPty> {
  let pty: typeof import("@lydell/node-pty");
  try {
    pty = await import("@lydell/node-pty");
  } catch (error) {
    throw new HomeAgentError(
      "pty_unavailable",
      `Cannot load the terminal library (@lydell/node-pty): ${(error as Error).message}; ` +
        `the daemon needs --allow-ffi for its native binding`,
      { cause: error },
    );
  }
  return (file, args, options) => {
    const child = pty.spawn(file, args, {
      name: "xterm-256color",
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      env: options.env,
    });
    return {
      pid: child.pid,
      write: (data) => child.write(data),
      resize: (cols, rows) => child.resize(cols, rows),
      kill: (signal = "SIGHUP") => child.kill(signal),
      onData: (listener) => void child.onData(listener),
      onExit: (listener) =>
        void child.onExit((e) =>
          listener({ code: e.exitCode, ...(e.signal ? { signal: e.signal } : {}) })
        ),
    };
  };
}
