/**
 * `serve` as the guard: the Guard over the real ports (the agent as this program's own
 * `serve --agent`, run/heartbeat, run/guard.json), with SIGINT and SIGTERM passed on to it.
 */
import { join } from "node:path";
import type { Clock, Logger } from "../../core/mod.ts";
import { spawnAgent } from "./agent_process.ts";
import { Guard, type GuardOptions, type GuardState } from "./guard.ts";

/** Options of runGuard. */
export interface RunGuardOptions {
  /** The `serve` command line of this program, program first (serviceCommand). */
  command: readonly string[];
  home: string;
  /** The home's run/ folder. */
  runDir: string;
  host?: string;
  port?: string;
  clock: Clock;
  /** The guard's own log. */
  logger: Logger;
  /** Where each of the agent's log lines goes (with the guard's own). */
  log(line: string): void;
  /** stdout: the URL line, once. */
  print(line: string): void;
  /** The guard's environment (DENO_V8_FLAGS there replaces AGENT_V8_FLAGS). */
  env: Record<string, string | undefined>;
  /** Whether the agent runs the very file the guard runs (the one-file bundle): see agentEnv. */
  sameFile: boolean;
  /** Settings of the Guard (tests shorten them). */
  tuning?: Pick<GuardOptions, "heartbeatTimeoutMs" | "checkEveryMs" | "stopTimeoutMs" | "policy">;
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * V8's heap settings for the agent, unless DENO_V8_FLAGS says otherwise: a young generation of
 * 4 MB (V8 grows it to 16 MB under start-up's allocations and keeps it) and V8's size-over-speed
 * heuristics, which collect and give back sooner. Measured: ~10 MB less idle, and 1,000 turns
 * leave ~20 MB instead of ~35 MB; a smaller young generation promotes the turns' short-lived
 * buffers, whose freed memory malloc keeps (docs/benchmarks.md).
 */
export const AGENT_V8_FLAGS = "--max-semi-space-size=4,--optimize-for-size";

/**
 * What the agent's environment gets on top of the guard's. Nothing when both run one file (the
 * bundle): Deno's V8 code cache of a file holds for one set of V8 flags, so an agent with other
 * flags than its guard's throws away the cache the guard wrote, and the guard the agent's, at
 * every start: each then parses the 13 MB file anew (measured: the agent ~1 s slower and
 * ~60 MB larger). There the flags are the user's to give both (DENO_V8_FLAGS, docs/operations.md).
 */
export function agentEnv(
  env: Record<string, string | undefined>,
  sameFile: boolean,
): Record<string, string> {
  return env.DENO_V8_FLAGS === undefined && !sameFile ? { DENO_V8_FLAGS: AGENT_V8_FLAGS } : {};
}

/** Run the guard until a signal stops it; resolves with serve's exit code. */
export async function runGuard(options: RunGuardOptions): Promise<number> {
  const heartbeat = join(options.runDir, "heartbeat");
  const stateFile = join(options.runDir, "guard.json");
  const guard = new Guard({
    clock: options.clock,
    logger: options.logger,
    pid: Deno.pid,
    spawn: (launch) =>
      spawnAgent(launch, { ...options, env: agentEnv(options.env, options.sameFile) }),
    lastBeat: async () => {
      try {
        return (await Deno.stat(heartbeat)).mtime?.getTime();
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return undefined;
        throw error;
      }
    },
    saveState: (state) => saveGuardState(stateFile, state),
    announce: options.print,
    ...options.tuning,
  });
  const listeners = SIGNALS.filter((s) => Deno.build.os !== "windows" || s === "SIGINT")
    .map((signal) => {
      const listener = () => guard.stop(signal);
      Deno.addSignalListener(signal, listener);
      return [signal, listener] as const;
    });
  try {
    return await guard.run();
  } finally {
    for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
    await Deno.remove(stateFile).catch(() => {});
  }
}

/** Write `state` to `path` atomically (tmp + rename). */
export async function saveGuardState(path: string, state: GuardState): Promise<void> {
  const tmp = `${path}.tmp`;
  await Deno.writeTextFile(tmp, JSON.stringify(state) + "\n", { mode: 0o600 });
  await Deno.rename(tmp, path);
}
