/**
 * `serve` as the guard: the Guard over the real ports (the agent as this program's own
 * `serve --agent`, run/heartbeat, run/guard.json), with SIGINT and SIGTERM passed on to it.
 */
import { join } from "node:path";
import type { Clock, Logger } from "../../core/mod.ts";
import { spawnAgent, watchAgent } from "./agent_process.ts";
import { agentEnv } from "./first_agent.ts";
import { Guard, type GuardOptions, type GuardState } from "./guard.ts";

/** Options of runGuard. */
export interface RunGuardOptions {
  /**
   * The `serve` command line of this program, program first (serviceCommand), asked at each
   * start of an agent (agentServe: the build cache while it matches the source).
   */
  command: () => readonly string[];
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
  /** The first agent, when startFirstAgent started it before the guard loaded this. */
  first?: Deno.ChildProcess;
  /** Settings of the Guard (tests shorten them). */
  tuning?: Pick<GuardOptions, "heartbeatTimeoutMs" | "checkEveryMs" | "stopTimeoutMs" | "policy">;
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

export { AGENT_V8_FLAGS, agentEnv } from "./first_agent.ts";

/** Run the guard until a signal stops it; resolves with serve's exit code. */
export async function runGuard(options: RunGuardOptions): Promise<number> {
  const heartbeat = join(options.runDir, "heartbeat");
  const stateFile = join(options.runDir, "guard.json");
  let first = options.first;
  const guard = new Guard({
    clock: options.clock,
    logger: options.logger,
    pid: Deno.pid,
    spawn: (launch) => {
      const started = first;
      first = undefined;
      if (started) return watchAgent(started, options);
      const env = agentEnv(options.env, options.sameFile);
      return spawnAgent(launch, { ...options, command: options.command(), env });
    },
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
