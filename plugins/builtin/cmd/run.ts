/**
 * One shell command in its own process group (`detached`: setsid), so a timeout or a stop
 * kills the shell and everything it started. Output is read to the end but kept only up to a
 * cap per stream, the cut marked. Background jobs end with the shell.
 */
import type { Clock } from "../../../core/mod.ts";

/** How a command ended. */
export type RunStatus = "exited" | "timeout" | "stopped" | "failed";

/** What one run produced. */
export interface RunResult {
  status: RunStatus;
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** Options of runShell. */
export interface RunOptions {
  clock: Clock;
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Runs the shell; default /bin/sh. */
  shell?: string;
  env?: Record<string, string>;
}

/** Run `command` with `sh -c`. Never throws for the command's own failure (status "failed"). */
export async function runShell(command: string, options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(options.shell ?? "/bin/sh", {
      args: ["-c", command],
      cwd: options.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
      ...(options.env ? { env: options.env, clearEnv: true } : {}),
    }).spawn();
  } catch (error) {
    return {
      status: "failed",
      exitCode: null,
      signal: null,
      stdout: "",
      stderr: `Cannot start the shell: ${(error as Error).message}`,
      durationMs: 0,
    };
  }
  let ended: RunStatus | undefined;
  const killGroup = (why: RunStatus) => {
    ended ??= why;
    try {
      Deno.kill(-child.pid, "SIGKILL"); // the whole group: the shell and its children
    } catch {
      // already gone
    }
  };
  const timer = options.clock.setTimer(options.timeoutMs, () => killGroup("timeout"));
  const onAbort = () => killGroup("stopped");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  try {
    const reads = Promise.all([
      capped(child.stdout, options.maxOutputBytes),
      capped(child.stderr, options.maxOutputBytes),
    ]);
    const status = await child.status;
    // A background job would hold the pipes open: it ends with the shell, as the group does.
    killGroup(ended ?? "exited");
    const [stdout, stderr] = await reads;
    return {
      status: ended ?? "exited",
      exitCode: status.signal ? null : status.code,
      signal: status.signal,
      stdout,
      stderr,
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    timer.cancel();
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** Read `stream` to its end, keeping the first `max` bytes; the rest is counted and marked. */
async function capped(stream: ReadableStream<Uint8Array>, max: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let kept = 0;
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (kept >= max) continue;
    const part = chunk.subarray(0, max - kept);
    parts.push(part.slice());
    kept += part.length;
  }
  const bytes = new Uint8Array(kept);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  // Back off to a character boundary so the cut does not end in a broken character.
  let end = bytes.length;
  if (total > kept) {
    while (end > 0 && end > bytes.length - 4 && (bytes[end - 1]! & 0xc0) === 0x80) {
      end--;
    }
  }
  if (total > kept && end > 0 && bytes[end - 1]! >= 0xc0) end--;
  const text = new TextDecoder().decode(bytes.subarray(0, end));
  return total > kept ? `${text}\n[output cut: ${total - end} more bytes not shown]` : text;
}
