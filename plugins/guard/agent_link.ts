/**
 * The agent's side of the guard: it writes run/heartbeat every 5 s (a hung event loop stops
 * writing, and the guard restarts it), and it watches its stdin, the guard's pipe: when that
 * ends the guard is gone (killed, say), and the agent stops in order rather than run on
 * unguarded.
 */
import { join } from "node:path";
import { type Clock, errorMessage, type Logger, type TimerHandle } from "../../core/mod.ts";
import type { GuardState } from "./guard.ts";
import { readGuardState } from "./state.ts";

/** The agent's beat interval, ms. */
export const HEARTBEAT_MS = 5000;

/** Options of linkToGuard. */
export interface GuardLinkOptions {
  /** The home's run/ folder: run/heartbeat is written, run/guard.json read. */
  runDir: string;
  clock: Clock;
  logger: Logger;
  /** The guard's pipe; default Deno.stdin. */
  stdin?: ReadableStream<Uint8Array>;
  intervalMs?: number;
}

/** The link; disposing stops the beat and removes the heartbeat file. */
export interface GuardLink extends AsyncDisposable {
  /** Resolves when the guard's pipe ends. */
  readonly guardGone: Promise<void>;
  /** What the guard wrote before this start (the boot and why); undefined when unreadable. */
  readonly state: GuardState | undefined;
}

/** Read the guard's state, start beating and watching the guard's pipe. */
export async function linkToGuard(options: GuardLinkOptions): Promise<GuardLink> {
  const { clock, logger } = options;
  const heartbeatPath = join(options.runDir, "heartbeat");
  const state = await readGuardState(join(options.runDir, "guard.json")).catch((error) => {
    logger.warn("Cannot read the guard's state", { error: errorMessage(error) });
    return undefined;
  });
  const every = options.intervalMs ?? HEARTBEAT_MS;
  let timer: TimerHandle | undefined;
  let closed = false;
  let failing = false;
  let writing = Promise.resolve();
  const beat = () => {
    const line = `${Deno.pid} ${new Date(clock.now()).toISOString()}\n`;
    // A sync write of one short line: the async one loads Deno's web streams module (~10-17 ms
    // of the agent's start, before the CLI socket listens).
    writing = Promise.resolve().then(() => Deno.writeTextFileSync(heartbeatPath, line)).then(() => {
      failing = false;
    }, (error) => {
      if (!failing) logger.warn("Cannot write the heartbeat", { error: errorMessage(error) });
      failing = true; // said once per streak, not every 5 s
    });
    if (!closed) timer = clock.setTimer(every, beat);
  };
  beat();
  const reader = options.stdin ? streamEnd(options.stdin) : stdinEnd();
  const guardGone = (async () => {
    try {
      while (!(await reader.read())) {
        // the guard writes nothing; any bytes are ignored
      }
    } catch {
      // a broken pipe is a gone guard too
    }
  })();
  return {
    guardGone,
    state,
    async [Symbol.asyncDispose]() {
      closed = true;
      timer?.cancel();
      await reader.cancel().catch(() => {});
      await writing;
      await Deno.remove(heartbeatPath).catch(() => {});
    },
  };
}

/** A pipe read until it ends: read() resolves true at its end; cancel() stops the reading. */
interface PipeEnd {
  read(): Promise<boolean>;
  cancel(): Promise<void>;
}

function streamEnd(stream: ReadableStream<Uint8Array>): PipeEnd {
  const reader = stream.getReader();
  return { read: async () => (await reader.read()).done, cancel: () => reader.cancel() };
}

/**
 * Deno.stdin read directly, not through `Deno.stdin.readable`: that loads Deno's web streams
 * module, ~10 ms of the agent's start before its CLI socket listens. Cancelling closes stdin,
 * which ends a pending read.
 */
function stdinEnd(): PipeEnd {
  const buffer = new Uint8Array(256);
  return {
    read: async () => (await Deno.stdin.read(buffer)) === null,
    cancel: () => Promise.resolve(Deno.stdin.close()),
  };
}
