/**
 * `rss_after_1k_turns_mb`: the agent's resident memory after 1,000 chat turns with memory on
 * (the working window prunes and archives to documents, the text log and the graph grow), each
 * answered by a fake OpenAI server on 127.0.0.1, sent one after another over the web API.
 * Issue 20 asks for no growth beyond 20 MB over `idle_rss_mb`; `rss_growth_1k_turns_mb` is that
 * difference, measured on the same daemon (after 10 warm-up turns, before the 1,000). Both
 * readings follow SETTLE_MS of idleness, as a home server's daemon idles between messages.
 * The agent runs from the checkout's build cache, as `idle_rss_mb`'s does and `deno task start`
 * runs it (built first when stale; before, the figure described whichever of the cache or the
 * source tree the checkout happened to have, ~15 MB apart).
 */
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { startServe } from "../fakes/daemon.ts";
import { type Figure, round } from "./_figure.ts";
import { ensureAgentCache } from "./daemon_bench.ts";

const TURNS = 1000;
const WARM_UP = 10;
/** Idle time before each reading: V8 gives unused heap back after ~10 s without work. */
const SETTLE_MS = 20_000;

function rssMb(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

/** English on purpose: Chinese text loads jieba's dictionary once (~60 MB), which is no leak. */
function message(i: number): string {
  const topics = ["the garden", "a trip to the coast", "the new heater", "dinner on Friday"];
  return `Turn ${i}: remember that we talked about ${topics[i % topics.length]} (note ${i * 7})`;
}

/**
 * Start and stop one daemon: the first run of a fresh build cache has V8 compile and write its
 * code cache, and held ~40 MB more (116 MB after 10 turns against 75), which would hide growth.
 */
async function primeAgent(): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "homeagent-bench-" });
  try {
    await using daemon = await startServe(home, { HOMEAGENT_LOG_LEVEL: "warn" });
    await daemon.agentPid();
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

async function measure(): Promise<Record<string, Figure>> {
  await ensureAgentCache();
  await primeAgent();
  await using server = startFakeOpenAI({ fallback: () => reply.text("Noted, thank you.") });
  const home = await Deno.makeTempDir({ prefix: "homeagent-bench-" });
  try {
    await using daemon = await startServe(home, {
      HOMEAGENT_LLM_BASE_URL: server.url,
      HOMEAGENT_LLM_MODEL: "fake-model",
      HOMEAGENT_LOG_LEVEL: "warn",
    });
    const url = new URL(daemon.url);
    const chat = async (text: string) => {
      const response = await fetch(new URL("/api/v1/chat?wait=1", url.origin), {
        method: "POST",
        headers: {
          authorization: `Bearer ${url.searchParams.get("token")}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ text }),
      });
      const body = await response.json();
      if (response.status !== 200) {
        throw new Error(`chat: ${response.status} ${JSON.stringify(body)}`);
      }
    };
    for (let i = 0; i < WARM_UP; i++) await chat(message(-1 - i));
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const pid = await daemon.agentPid();
    const before = rssMb(pid);
    for (let i = 0; i < TURNS; i++) await chat(message(i));
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const after = rssMb(pid);
    return {
      "rss_after_1k_turns_mb": { value: round(after), unit: "MB" },
      "rss_growth_1k_turns_mb": { value: round(after - before), unit: "MB" },
    };
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

/** Figures of this module. */
export const figures = { "rss_after_1k_turns_mb": measure, "rss_growth_1k_turns_mb": measure };
