/** Run the real `main.ts` as a subprocess in a temporary home, for end-to-end tests. */
import { join } from "node:path";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** Output of one finished command. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * What every spawned main.ts sees unless a test says otherwise: no colour, no index of running
 * daemons (tests in parallel would see each other's), no `deno task` caller folder.
 */
export const QUIET_ENV = { NO_COLOR: "1", HOMEAGENT_RUNTIME_DIR: "", INIT_CWD: "" };

/** Run `main.ts ARGS` to completion. */
export async function runMain(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
): Promise<CommandResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, ...args],
    cwd: options.cwd,
    env: { ...QUIET_ENV, ...options.env },
    stdin: options.stdin !== undefined ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await child.output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** A daemon started by startServe. */
export interface RunningDaemon extends AsyncDisposable {
  home: string;
  socket: string;
  /** The first stdout line: the URL with the token. */
  url: string;
  /** The guard: `serve` itself. */
  child: Deno.ChildProcess;
  /** The agent process the guard runs now (run/homed.pid): the daemon `status` reports. */
  agentPid(): Promise<number>;
  /** Send SIGTERM and wait; returns the exit code and what it logged. */
  stop(): Promise<CommandResult>;
}

/** Start `main.ts serve` in `home` on a free port and wait until its socket accepts. */
export async function startServe(
  home: string,
  env: Record<string, string> = {},
  options: { umask?: string } = {},
): Promise<RunningDaemon> {
  const args = ["run", "--allow-all", "--quiet", MAIN, "serve", "--home", home, "--port", "0"];
  // A umask is set by a shell that then becomes the daemon (Deno.Command has no umask).
  const shell = options.umask === undefined ? undefined : `umask ${options.umask}; exec "$0" "$@"`;
  const child = new Deno.Command(shell ? "/bin/sh" : Deno.execPath(), {
    args: shell ? ["-c", shell, Deno.execPath(), ...args] : args,
    env: { ...QUIET_ENV, HOMEAGENT_LOG_LEVEL: "info", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderrText = new Response(child.stderr).text();
  let first = "";
  while (!first.includes("\n")) {
    const { value, done } = await stdout.read();
    if (done) {
      const status = await child.status;
      throw new Error(
        `serve exited with ${status.code} before printing its URL: ${await stderrText}`,
      );
    }
    first += value;
  }
  const rest = (async () => {
    let text = first.slice(first.indexOf("\n") + 1);
    for (let r = await stdout.read(); !r.done; r = await stdout.read()) text += r.value;
    return text;
  })();
  let stopped: Promise<CommandResult> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      try {
        child.kill("SIGTERM");
      } catch {
        // already exited
      }
      const status = await child.status;
      return { code: status.code, stdout: await rest, stderr: await stderrText };
    })();
  return {
    home,
    socket: join(home, "run", "homed.sock"),
    url: first.slice(0, first.indexOf("\n")),
    child,
    agentPid: () => readPid(join(home, "run", "homed.pid")),
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}

/**
 * The pid in `path`. Rejects unless it is a positive integer: `Deno.kill(0)` would signal the
 * whole process group, the test runner and the shell that started it included.
 */
export async function readPid(path: string): Promise<number> {
  const text = (await Deno.readTextFile(path)).trim();
  const pid = Number(text);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`No pid in ${path}: "${text}"`);
  return pid;
}
