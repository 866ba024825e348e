/**
 * The guard's first act: start the agent before the guard loads anything else, so the two
 * processes start at once rather than one after the other (docs/benchmarks.md: the guard's own
 * modules took ~0.1 s before it spawned, ~0.03 s of it for Deno's `node:` layer alone). So this
 * module imports nothing that runs (types and launch.ts only), and main.ts imports it alone.
 *
 * It starts the agent only when deno runs the checkout's main.ts (see startFirstAgent), and only
 * for a command line it reads the same way main.ts does: `serve` with `--home`, `--host` and
 * `--port` at most, a home that is an absolute path, and no socket in the home (a running or
 * crashed daemon). Anything else is left to the guard's usual path, which
 * checks the home first; so is every error here, which that path meets and reports again.
 */
import { type LaunchFacts, launchKind } from "../builtin/cli/launch.ts";
import { agentServe } from "./agent_cache.ts";
import type { AgentLaunch, GuardState } from "./guard.ts";

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

/** How the agent is started: the `serve` command line and where it serves. */
export interface AgentCommand {
  /** The `serve` command line of this program, program first (serviceCommand). */
  command: readonly string[];
  home: string;
  host?: string;
  /** `--port` as given to serve; a restart uses the port the first agent served on. */
  port?: string;
  /** Variables set for the agent on top of the guard's own environment. */
  env?: Record<string, string>;
}

/** The arguments of the agent's command line after the program. */
export function agentArgs(launch: AgentLaunch, options: AgentCommand): string[] {
  const args = [...options.command.slice(1), "--home", options.home, "--agent"];
  if (launch.boot === "failback") args.push("--failback");
  const port = launch.port !== undefined ? String(launch.port) : options.port;
  if (port !== undefined) args.push("--port", port);
  if (options.host !== undefined) args.push("--host", options.host);
  return args;
}

/**
 * The agent's process: its own session and process group (so the guard can end what a dead
 * agent left behind), its stdin the guard's pipe, stdout and stderr piped to the guard.
 */
export function startAgentChild(launch: AgentLaunch, options: AgentCommand): Deno.ChildProcess {
  return new Deno.Command(options.command[0]!, {
    args: agentArgs(launch, options),
    env: options.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
}

/** What the guard's command line says about its first agent. */
export interface FirstAgentPlan {
  home: string;
  host?: string;
  port?: string;
}

const SERVE_FLAGS = new Set(["home", "host", "port"]);

/**
 * The plan for `args` (`serve --home /h --port 0`), or undefined when they are anything else
 * (another command, another flag, a value that looks like a flag, a repeated flag, a relative
 * or unnormalized home): those the guard's usual path reads with the full parser.
 */
export function planFirstAgent(
  args: readonly string[],
  env: Record<string, string | undefined>,
): FirstAgentPlan | undefined {
  const values = new Map<string, string>();
  let serve = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "serve" && !serve) {
      serve = true;
      continue;
    }
    const match = /^--([a-z]+)(?:=(.*))?$/.exec(arg);
    if (!match || !SERVE_FLAGS.has(match[1]!) || values.has(match[1]!)) return undefined;
    const value = match[2] ?? args[++i];
    if (value === undefined || value === "" || value.startsWith("-")) return undefined;
    values.set(match[1]!, value);
  }
  const home = values.get("home") ?? env.HOMEAGENT_HOME ??
    (env.HOME ? `${env.HOME}/.homeagent` : undefined);
  if (!serve || home === undefined || !isNormalAbsolute(home)) return undefined;
  return { home, host: values.get("host"), port: values.get("port") };
}

/** `/a/b`: what resolveHome returns unchanged (no `.`, `..`, empty part or trailing slash). */
function isNormalAbsolute(path: string): boolean {
  const parts = path.split("/");
  return parts.length > 1 && parts[0] === "" &&
    parts.slice(1).every((p) => p !== "" && p !== "." && p !== "..");
}

/** An agent started before the guard loaded its modules, with what it was started for. */
export interface FirstAgent extends FirstAgentPlan {
  child: Deno.ChildProcess;
  /** Why it runs from the source tree, not the build cache (agent_cache.ts); else undefined. */
  stale?: string;
}

/**
 * Start the first agent when `args` are a plain `serve` (see the file comment); undefined when
 * the guard's usual path is to do it. Writes run/guard.json first: the agent reads it at start.
 */
export function startFirstAgent(
  args: readonly string[],
  env: Record<string, string | undefined>,
): FirstAgent | undefined {
  if (Deno.build.os === "windows") return undefined;
  const plan = planFirstAgent(args, env);
  if (plan === undefined) return undefined;
  try {
    // The checkout only: the bundle's guard and agent load the same 13 MB file, and started
    // together they took twice as long as one after the other (docs/benchmarks.md).
    const facts = firstLaunchFacts();
    if (launchKind(facts) !== "checkout") return undefined;
    const run = `${plan.home}/run`;
    if (exists(`${run}/homed.sock`)) return undefined;
    Deno.mkdirSync(run, { recursive: true, mode: 0o700 });
    const state: GuardState = { pid: Deno.pid, boot: "normal", restarts: 0 };
    Deno.writeTextFileSync(`${run}/guard.json.tmp`, JSON.stringify(state) + "\n", { mode: 0o600 });
    Deno.renameSync(`${run}/guard.json.tmp`, `${run}/guard.json`);
    const { command, stale } = agentServe(facts, env);
    const child = startAgentChild({ boot: "normal" }, {
      ...plan,
      command,
      env: agentEnv(env, false),
    });
    return { ...plan, child, stale };
  } catch {
    return undefined; // the usual path meets the same problem and says what it is
  }
}

/**
 * The first agent's process when it was started for `plan` (what the guard's full parser read);
 * else undefined, and an agent started for anything else is killed: the guard starts its own.
 */
export function sameAgent(
  first: FirstAgent,
  plan: FirstAgentPlan,
): Deno.ChildProcess | undefined {
  if (first.home === plan.home && first.host === plan.host && first.port === plan.port) {
    return first.child;
  }
  void dropAgent(first.child);
  return undefined;
}

/** Kill an agent and what it started (its process group); resolves once it has exited. */
export async function dropAgent(child: Deno.ChildProcess): Promise<void> {
  try {
    Deno.kill(-child.pid, "SIGKILL");
  } catch {
    // it has exited already
  }
  await child.status;
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** processLaunchFacts' execPath, repo and bundle, without node:path and node:url (POSIX). */
export function firstLaunchFacts(): Pick<LaunchFacts, "execPath" | "repo" | "bundle"> {
  const main = Deno.mainModule;
  const path = (url: URL) => decodeURIComponent(url.pathname);
  const bundle = main.startsWith("file:") && /\.m?js$/.test(main) ? path(new URL(main)) : undefined;
  const repo = path(new URL("../../main.ts", import.meta.url)).replace(/\/main\.ts$/, "");
  return { execPath: Deno.execPath(), repo, bundle };
}
