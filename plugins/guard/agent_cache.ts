/**
 * The agent from the checkout's build cache: `deno task build:agent` writes the daemon as a few
 * pre-built JavaScript files (`dist/agent/<key>/main.js` and its chunks, .ci/agent_build.ts) and
 * `dist/agent/current.json`, which lists every file the build read with its size and mtime. The
 * guard runs its agent from there only while every one of those files is as it was (an edit, a
 * checkout, a `deno install` makes the cache stale, and the agent runs from the source tree as
 * before). Loading ~360 TypeScript modules costs the agent ~0.3 s at every start; the cache's
 * start set is a dozen files (docs/benchmarks.md). Imports nothing: the guard asks before it
 * loads its own modules (first_agent.ts).
 */
import type { Logger } from "../../core/mod.ts";
import { type LaunchFacts, launchKind, serviceCommand } from "../builtin/cli/launch.ts";

/** Set (to anything) for `serve` to run its agent from the source tree even with a current cache. */
export const NO_AGENT_CACHE = "HOMEAGENT_NO_AGENT_CACHE";
/** Where the cache lives in the checkout. */
export const AGENT_CACHE_DIR = "dist/agent";
/** The manifest the build writes last (atomically): what the entry was built from. */
export const AGENT_CACHE_MANIFEST = "current.json";

/** What current.json holds. */
export interface AgentCacheManifest {
  format: 1;
  /** The entry module, relative to the cache folder (`<key>/main.js`). */
  entry: string;
  /** Every file the build read, relative to the checkout: [path, bytes, mtime in ms]. */
  inputs: [string, number, number][];
}

/** Whether the cache can run the agent: its entry (absolute path), or why not. */
export type AgentCacheCheck = { entry: string } | { stale: string };

/** Check `repo`'s cache against the files it was built from (a stat of each, ~1 ms a hundred). */
export function checkAgentCache(repo: string): AgentCacheCheck {
  const dir = `${repo}/${AGENT_CACHE_DIR}`;
  let manifest: unknown;
  try {
    manifest = JSON.parse(Deno.readTextFileSync(`${dir}/${AGENT_CACHE_MANIFEST}`));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { stale: "no build (deno task build:agent)" };
    return { stale: `unreadable ${AGENT_CACHE_MANIFEST}: ${String(error)}` };
  }
  if (!isManifest(manifest)) return { stale: `${AGENT_CACHE_MANIFEST} is not a build manifest` };
  for (const [path, size, mtime] of manifest.inputs) {
    try {
      const info = Deno.statSync(`${repo}/${path}`);
      if (info.size !== size || info.mtime?.getTime() !== mtime) {
        return { stale: `${path} changed` };
      }
    } catch {
      return { stale: `${path} is gone` };
    }
  }
  return { entry: `${dir}/${manifest.entry}` };
}

/**
 * Checked by hand, not with zod: this runs before the guard loads any package. A wrong shape
 * only means "not usable", never an error.
 */
function isManifest(value: unknown): value is AgentCacheManifest {
  if (typeof value !== "object" || value === null) return false;
  const { format, entry, inputs } = value as Record<string, unknown>;
  return format === 1 && typeof entry === "string" && /^[\w-]+\/main\.js$/.test(entry) &&
    Array.isArray(inputs) &&
    inputs.every((i) =>
      Array.isArray(i) && i.length === 3 && typeof i[0] === "string" && !i[0].startsWith("/") &&
      !i[0].split("/").includes("..") && typeof i[1] === "number" && typeof i[2] === "number"
    );
}

/** The agent's command line and where it came from. */
export interface AgentServe {
  /** The `serve` command line, program first (the guard adds `--agent` and the flags). */
  command: string[];
  /** Why the agent runs from the source tree; undefined when it runs from the cache. */
  stale?: string;
}

/**
 * How the guard starts an agent: from the checkout's cache when it is current (deno running
 * its entry with the checkout's deno.json, so workers and plugins resolve as from the source
 * tree), else as serviceCommand says. Asked again at every start, so a restart after an edit
 * runs the edited source.
 */
export function agentServe(
  facts: Pick<LaunchFacts, "execPath" | "repo" | "bundle">,
  env: Record<string, string | undefined>,
): AgentServe {
  const command = serviceCommand(facts);
  if (launchKind(facts) !== "checkout") return { command };
  if (env[NO_AGENT_CACHE] !== undefined) return { command, stale: `${NO_AGENT_CACHE} is set` };
  const cache = checkAgentCache(facts.repo);
  if ("stale" in cache) return { command, stale: cache.stale };
  // [deno, run, --config=…, …permissions, <repo>/main.ts, serve]: the entry in main.ts's place.
  return { command: [...command.slice(0, -2), cache.entry, "serve"] };
}

/** agentServe as the guard asks it before each agent start; says at debug level which it ran. */
export function agentCommand(
  facts: Pick<LaunchFacts, "execPath" | "repo" | "bundle">,
  env: Record<string, string | undefined>,
  logger: Pick<Logger, "debug">,
): () => readonly string[] {
  return () => {
    const { command, stale } = agentServe(facts, env);
    logger.debug("Agent command", { command: command.join(" "), ...(stale && { stale }) });
    return command;
  };
}
