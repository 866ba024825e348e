/**
 * The daemon as a process: one per home (run/homed.sock answers while it runs, run/homed.pid
 * names it), and SIGINT/SIGTERM turned into an orderly stop. The socket commands find it
 * through a DaemonTarget.
 */
import type { Logger } from "../../../core/mod.ts";
import type { DaemonTarget } from "./client.ts";
import { DaemonIndex, daemonIndexDir } from "./daemon_index.ts";
import { refuseRunning } from "../../guard/running.ts";
import { writeAtomic } from "../_fs.ts";

/** The run files of a home. */
export interface RunFiles {
  root: string;
  socket: string;
  pidFile: string;
}

/** The claim on a home; disposing removes run/homed.pid and a socket left behind. */
export interface DaemonClaim extends AsyncDisposable {
  /** Write run/homed.pid: the daemon is up. */
  announce(): Promise<void>;
}

/**
 * Refuse a second daemon on the same home (its socket answers); remove a stale socket left by
 * a crash. Throws HomeAgentError "already_running" naming the running daemon's pid.
 */
export async function claimDaemon(files: RunFiles): Promise<DaemonClaim> {
  if (await refuseRunning(files)) await Deno.remove(files.socket); // stale
  const gone = (error: unknown) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  };
  return {
    // Atomic: a reader (a script, the tests' kill) never sees an empty pid file, which it would
    // read as pid 0, the whole process group.
    announce: () => writeAtomic(files.pidFile, `${Deno.pid}\n`, { mode: 0o644 }),
    async [Symbol.asyncDispose]() {
      await Deno.remove(files.pidFile).catch(gone);
      await Deno.remove(files.socket).catch(gone);
    },
  };
}

/** The first SIGINT or SIGTERM; a second one of either ends the process at once. */
export interface StopSignals extends Disposable {
  /** Resolves with the first signal. */
  readonly signalled: Promise<Deno.Signal>;
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;
const EXIT_CODE: Record<(typeof SIGNALS)[number], number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Listen for SIGINT and SIGTERM until disposed. Install it before the daemon says it is up: a
 * signal with no listener ends the process on the spot, with nothing flushed or removed.
 */
export function stopSignals(logger: Logger, exit: (code: number) => void = Deno.exit): StopSignals {
  const first = Promise.withResolvers<Deno.Signal>();
  let received: Deno.Signal | undefined;
  const listeners = SIGNALS.map((signal) => {
    const listener = () => {
      if (received === undefined) {
        received = signal;
        first.resolve(signal);
        return;
      }
      logger.warn("Second signal: exiting without finishing the stop", { signal });
      exit(EXIT_CODE[signal]);
    };
    if (Deno.build.os !== "windows" || signal === "SIGINT") {
      Deno.addSignalListener(signal, listener);
    }
    return [signal, listener] as const;
  });
  return {
    signalled: first.promise,
    [Symbol.dispose]() {
      for (const [signal, listener] of listeners) {
        if (Deno.build.os !== "windows" || signal === "SIGINT") {
          Deno.removeSignalListener(signal, listener);
        }
      }
    },
  };
}

/** The daemon of the home at `root`, as the socket commands reach it. */
export function daemonTarget(
  files: Pick<RunFiles, "root" | "socket">,
  options: { command: string; env: Record<string, string | undefined> },
): DaemonTarget {
  return {
    home: files.root,
    socket: files.socket,
    command: options.command,
    index: daemonIndex(options.env),
  };
}

/** This user's index of running daemons (which home each serves); none without --allow-sys. */
export function daemonIndex(env: Record<string, string | undefined>): DaemonIndex {
  let uid: number | null = null;
  try {
    uid = Deno.uid();
  } catch {
    // no --allow-sys: no index
  }
  return new DaemonIndex(daemonIndexDir(env, uid));
}
