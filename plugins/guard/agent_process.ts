/**
 * The agent as a real process: this program's own `serve --agent`, in a process group of its
 * own (so the guard can end what a dead agent left behind), its stdin a pipe the agent watches
 * (its end means the guard is gone), its stdout the URL line, its stderr the log, relayed line
 * by line.
 */
import { LineSplitter } from "../sdk/line_splitter.ts";
import type { AgentExit, AgentLaunch, AgentProcess } from "./guard.ts";
import { type AgentCommand, startAgentChild } from "./first_agent.ts";

export { agentArgs } from "./first_agent.ts";

/** Longest log line relayed whole, bytes; longer ones are replaced by a note of their size. */
const MAX_LINE_BYTES = 64 * 1024;
/** After the agent exits, how long its pipes may take to drain (a grandchild may hold them). */
const DRAIN_MS = 1000;

/** Options of spawnAgent. */
export interface SpawnAgentOptions extends AgentCommand {
  /** Each line the agent logs on stderr, as written. */
  log(line: string): void;
  /** Lines on its stdout after the URL line. */
  print(line: string): void;
}

/** Start one agent process. */
export function spawnAgent(launch: AgentLaunch, options: SpawnAgentOptions): AgentProcess {
  return watchAgent(startAgentChild(launch, options), options);
}

/** The AgentProcess of an agent's `child` (started by spawnAgent, or by startFirstAgent). */
export function watchAgent(
  child: Deno.ChildProcess,
  options: Pick<SpawnAgentOptions, "log" | "print">,
): AgentProcess {
  const up = Promise.withResolvers<string | undefined>();
  let lastError: string | undefined;
  let first = true;
  const stdoutDone = readLines(child.stdout, (line) => {
    if (first) up.resolve(line); // the URL: `serve` prints it once it serves
    else options.print(line);
    first = false;
  }).finally(() => up.resolve(undefined));
  const stderrDone = readLines(child.stderr, (line) => {
    options.log(line);
    lastError = errorOf(line) ?? lastError;
  });
  const exited = child.status.then(async (status): Promise<AgentExit> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const drained = Promise.all([stdoutDone, stderrDone]);
    await Promise.race([drained, new Promise((r) => timer = setTimeout(r, DRAIN_MS))]);
    clearTimeout(timer);
    await child.stdin.close().catch(() => {});
    return { code: status.code, signal: status.signal };
  });
  return {
    pid: child.pid,
    up: up.promise,
    exited,
    lastError: () => lastError,
    signal(signal) {
      try {
        child.kill(signal);
      } catch {
        // already exited
      }
    },
    killAll() {
      try {
        Deno.kill(-child.pid, "SIGKILL");
      } catch {
        // nothing left in its group
      }
    },
  };
}

/** Call `onLine` for each line of `stream` until it ends; never rejects. */
async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
): Promise<void> {
  const lines = new LineSplitter(MAX_LINE_BYTES);
  const oversize = (bytes: number) => onLine(`(a line of ${bytes} bytes was left out)`);
  try {
    for await (const chunk of stream) lines.push(chunk, onLine, oversize);
  } catch {
    // the pipe broke: the process is gone
  }
}

/** The message of an error line: a JSON log line at level error, or deno's `error: …`. */
export function errorOf(line: string): string | undefined {
  if (line.startsWith("error: ")) return line.slice(7);
  if (!line.startsWith("{")) return undefined;
  try {
    const record = JSON.parse(line) as Record<string, unknown>;
    if (record.level !== "error" || typeof record.msg !== "string") return undefined;
    return typeof record.error === "string" ? `${record.msg}: ${record.error}` : record.msg;
  } catch {
    return undefined;
  }
}
