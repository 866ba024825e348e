/**
 * Daemon figures: `startup_ms` (process start → socket accepting), `idle_rss_mb` (the agent
 * process), `guard_rss_mb` (the guard that `serve` is), and `supervisor_restart_ms` (kill -9
 * of the agent → the socket accepting again). The checkout's agent build cache is built first
 * (`deno task build:agent`, as a user of the checkout runs it); `startup_ms_source` and
 * `idle_rss_mb_source` are the same daemon with its agent run from the source tree.
 * `first_chat_ms` is process start → the first `chat` over the CLI socket answered (a fake
 * OpenAI server on 127.0.0.1), so a start that accepts early but answers late shows there.
 */
import { join } from "node:path";
import { buildAgentCache } from "../../.ci/agent_build.ts";
import { checkAgentCache, NO_AGENT_CACHE } from "../../plugins/guard/agent_cache.ts";
import { CliClient } from "../../plugins/builtin/cli/client.ts";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { type Figure, quantile, round } from "./_figure.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const REPO = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const RUNS = 5;
const RESTARTS = 5;

/** How the bench starts `serve`: deno's arguments before `serve`, and the folder it runs in. */
export interface Launch {
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
}

/** The source tree: deno running the checkout's main.ts (with its deno.json). */
const CHECKOUT: Launch = { args: ["run", "--allow-all", "--quiet", MAIN] };
/** The same with the agent run from the source tree, not the build cache. */
const UNCACHED: Launch = { ...CHECKOUT, env: { [NO_AGENT_CACHE]: "1" } };

/** Start `serve` in a fresh home; resolves when its socket accepts a connection. */
export async function startDaemon(
  home: string,
  env: Record<string, string> = {},
  launch: Launch = CHECKOUT,
) {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [...launch.args, "serve", "--home", home, "--port", "0"],
    cwd: launch.cwd,
    env: { HOMEAGENT_LOG_LEVEL: "warn", ...launch.env, ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const socket = join(home, "run", "homed.sock");
  try {
    await accepting(socket, started + 30_000);
  } catch (error) {
    child.kill("SIGKILL");
    await child.output();
    throw error;
  }
  return { child, started, startupMs: performance.now() - started };
}

/**
 * `serve` in a fresh home until its first `chat`, sent over the CLI socket the moment it
 * accepts, is answered: median of RUNS starts, each against the same fake OpenAI server.
 */
export async function measureFirstChat(launch: Launch = CHECKOUT): Promise<number> {
  await using server = startFakeOpenAI({ fallback: () => reply.text("Hello there.") });
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const home = await Deno.makeTempDir({ prefix: "homeagent-bench-" });
    try {
      const env = { HOMEAGENT_LLM_BASE_URL: server.url, HOMEAGENT_LLM_MODEL: "fake-model" };
      const { child, started } = await startDaemon(home, env, launch);
      try {
        const client = await CliClient.connect(join(home, "run", "homed.sock"));
        try {
          await client.send({ type: "chat", text: "Hello?" });
          const answer = await client.expect("reply");
          if (answer.status !== "ok") throw new Error(`first chat: ${JSON.stringify(answer)}`);
        } finally {
          client.close();
        }
        samples.push(performance.now() - started);
      } finally {
        await stopDaemon(child);
      }
    } finally {
      await removeHome(home);
    }
  }
  return quantile(samples, 0.5);
}

/**
 * Remove a home the daemon served; retried for a moment, since under load the agent may still
 * be writing its last files (the turn's text log) when its guard has exited.
 */
async function removeHome(home: string): Promise<void> {
  for (let attempt = 0;; attempt++) {
    try {
      return await Deno.remove(home, { recursive: true });
    } catch (error) {
      if (attempt >= 20 || !(error instanceof Error) || !/not empty/i.test(error.message)) {
        throw error;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Resolves once `socket` accepts a connection; throws past `deadline` (performance.now()). */
async function accepting(socket: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const conn = await Deno.connect({ transport: "unix", path: socket });
      conn.close();
      return;
    } catch {
      if (performance.now() > deadline) {
        throw new Error(`The daemon did not open its socket "${socket}" in time`);
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  }
}

/** The agent's pid (run/homed.pid): the daemon the guard runs. */
function agentPid(home: string): number | undefined {
  try {
    const pid = Number(Deno.readTextFileSync(join(home, "run", "homed.pid")));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined; // empty while being written
  } catch {
    return undefined;
  }
}

/** Stop a daemon started by startDaemon and wait for it to exit. */
export async function stopDaemon(child: Deno.ChildProcess): Promise<void> {
  child.kill("SIGTERM");
  await child.output();
}

function rssMb(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** What one way of starting `serve` measures. */
export interface ServeFigures {
  /** Median of RUNS starts in fresh homes. */
  startupMs: number;
  /** The agent's and the guard's resident memory, 2 s after the last start. */
  agentRssMb: number;
  guardRssMb: number;
}

/** Start `serve` RUNS times in fresh homes the way `launch` says. */
export async function measureServe(launch: Launch = CHECKOUT): Promise<ServeFigures> {
  const startups: number[] = [];
  let rss = NaN;
  let guardRss = NaN;
  for (let i = 0; i < RUNS; i++) {
    const home = await Deno.makeTempDir({ prefix: "homeagent-bench-" });
    try {
      const { child, startupMs } = await startDaemon(home, {}, launch);
      startups.push(startupMs);
      if (i === RUNS - 1) {
        await new Promise((r) => setTimeout(r, 2000)); // let start-up garbage settle
        rss = rssMb(agentPid(home)!);
        guardRss = rssMb(child.pid);
      }
      await stopDaemon(child);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  }
  return { startupMs: quantile(startups, 0.5), agentRssMb: rss, guardRssMb: guardRss };
}

/** The checkout's agent build cache, built when missing or stale. */
export async function ensureAgentCache(): Promise<void> {
  if ("stale" in checkAgentCache(REPO)) await buildAgentCache();
}

async function measure(): Promise<Record<string, Figure>> {
  await ensureAgentCache();
  const serve = await measureServe();
  return {
    startup_ms: { value: round(serve.startupMs), unit: "ms" },
    idle_rss_mb: { value: round(serve.agentRssMb), unit: "MB" },
    guard_rss_mb: { value: round(serve.guardRssMb), unit: "MB" },
  };
}

async function measureSource(): Promise<Record<string, Figure>> {
  const serve = await measureServe(UNCACHED);
  return {
    startup_ms_source: { value: round(serve.startupMs), unit: "ms" },
    idle_rss_mb_source: { value: round(serve.agentRssMb), unit: "MB" },
  };
}

async function firstChat(): Promise<Figure> {
  await ensureAgentCache();
  return { value: round(await measureFirstChat()), unit: "ms" };
}

/**
 * kill -9 of the agent → the guard's next agent accepting on the same socket; median of
 * RESTARTS daemons, one kill each (the first crash's backoff: later ones back off longer).
 */
async function restart(): Promise<Figure> {
  await ensureAgentCache();
  const samples: number[] = [];
  for (let i = 0; i < RESTARTS; i++) {
    const home = await Deno.makeTempDir({ prefix: "homeagent-bench-" });
    try {
      const { child } = await startDaemon(home);
      await new Promise((r) => setTimeout(r, 500));
      const pid = agentPid(home)!;
      const killed = performance.now();
      Deno.kill(pid, "SIGKILL");
      // A killed process's listener may take connections until its last thread is gone, so
      // the socket counts as back once the next agent has written its pid (after it listens).
      while ((agentPid(home) ?? pid) === pid) await new Promise((r) => setTimeout(r, 1));
      await accepting(join(home, "run", "homed.sock"), killed + 30_000);
      samples.push(performance.now() - killed);
      await stopDaemon(child);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  }
  return { value: round(quantile(samples, 0.5)), unit: "ms" };
}

/** Figures of this module. */
export const figures = {
  "startup_ms": measure,
  "idle_rss_mb": measure,
  "guard_rss_mb": measure,
  "startup_ms_source": measureSource,
  "idle_rss_mb_source": measureSource,
  "supervisor_restart_ms": restart,
  "first_chat_ms": firstChat,
};
