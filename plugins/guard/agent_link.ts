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
    writing = Deno.writeTextFile(heartbeatPath, line).then(() => {
      failing = false;
    }, (error) => {
      if (!failing) logger.warn("Cannot write the heartbeat", { error: errorMessage(error) });
      failing = true; // said once per streak, not every 5 s
    });
    if (!closed) timer = clock.setTimer(every, beat);
  };
  beat();
  const reader = (options.stdin ?? Deno.stdin.readable).getReader();
  const guardGone = (async () => {
    try {
      while (!(await reader.read()).done) {
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
