/**
 * The crash soak (issue 11, "acknowledged means durable"): a real daemon (`main.ts serve` on a
 * temp home, a fake OpenAI server on 127.0.0.1) answers chats sent without pause over the web
 * API, SSE, the CLI socket and the OpenAI endpoint, and is killed with SIGKILL at random moments
 * and restarted. At the end it is stopped cleanly and its files are read as plain JSON: every
 * chat whose reply was acknowledged must be in the context window or in documents, exactly once.
 */
import { join } from "node:path";
import { startServe } from "../fakes/daemon.ts";
import { runMain } from "../fakes/daemon.ts";
import { rng } from "../fakes/random.ts";
import { type FakeRequest, reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import {
  type Acknowledged,
  chatCli,
  chatOpenAI,
  chatWeb,
  type DaemonAddress,
  daemonAddress,
  SseChats,
  statusCli,
} from "./_clients.ts";

/** Options of runKillLoop. */
export interface KillLoopOptions {
  kills: number;
  /** Seed of the kill moments and the recall choices. */
  seed?: number;
  /** A daemon lives this long after it is ready, uniformly at random; default 300–2500 ms. */
  minLifeMs?: number;
  maxLifeMs?: number;
  /** `max_context_size` during the soak (small, so every turn prunes and archives); default 2. */
  contextSize?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** What the soak found. */
export interface KillLoopResult {
  kills: number;
  /** Chats whose reply reached the caller with status ok. */
  acknowledged: number;
  /** Acknowledged chats whose input or reply is neither in the window nor in a document. */
  lost: number;
  /** Chats (acknowledged or not) whose input or reply is stored more than once. */
  doubled: number;
  /** Kills after which at least one chat acknowledged in that life was lost. */
  killsWithLoss: number;
  /** Acknowledged chats found in documents (archived by prunes). */
  inDocuments: number;
  /** `doc_query` calls the fake model made (documents moved back into the window). */
  recalls: number;
  durationS: number;
  /** Some lost or doubled chats, for the report. */
  examples: string[];
}

const userText = (n: number) => `soak u${n}x`;
const replyText = (n: number) => `soak r${n}x`;
const SENDERS = ["web", "cli", "openai", "sse"] as const;

/**
 * The fake model: answers chat N with "soak rNx"; every seventh chat (offered tools) first calls
 * `doc_query` for an older chat, so documents also move back into the window under kills.
 */
function fakeModel() {
  let recalls = 0;
  const answer = (request: FakeRequest) => {
    const messages = request.body.messages as { role: string; content?: string }[];
    const n = Number(/soak u(\d+)x/.exec(String(messages[1]?.content ?? ""))?.[1] ?? NaN);
    if (!Number.isFinite(n)) return reply.text("soak noop");
    const tools = (request.body.tools as { function: { name: string } }[] | undefined) ?? [];
    const offered = tools.some((t) => t.function.name === "doc_query");
    if (offered && n % 7 === 0 && n > 20 && messages.at(-1)?.role !== "tool") {
      recalls++;
      return reply.toolCalls([{ name: "doc_query", arguments: { query: userText(n - 20) } }]);
    }
    return reply.text(replyText(n));
  };
  return { answer, recalls: () => recalls };
}

/** Run the soak. */
export async function runKillLoop(options: KillLoopOptions): Promise<KillLoopResult> {
  const started = performance.now();
  const model = fakeModel();
  const rand = rng(options.seed ?? Date.now());
  const log = options.log ?? (() => {});
  const home = await Deno.makeTempDir({ prefix: "homeagent-soak-" });
  await using server = startFakeOpenAI({ fallback: model.answer });
  const env = {
    HOMEAGENT_LLM_BASE_URL: server.url,
    HOMEAGENT_LLM_MODEL: "fake-model",
    HOMEAGENT_LOG_LEVEL: "warn",
  };
  try {
    const size = String(options.contextSize ?? 2);
    const set = await runMain([
      "config",
      "set",
      "--home",
      home,
      "core.agent.max_context_size",
      size,
    ]);
    if (set.code !== 0) throw new Error(`config set failed: ${set.stderr}`);
    const acked = new Map<number, number>(); // chat → the life it was acknowledged in
    let next = 1;
    for (let life = 1; life <= options.kills; life++) {
      const lifeMs = pick(rand, options.minLifeMs ?? 300, options.maxLifeMs ?? 2500);
      const count = await liveAndKill(home, env, lifeMs, () => next++, (n) => acked.set(n, life));
      log(`kill ${life}/${options.kills}: ${count} acknowledged in ${Math.round(lifeMs)} ms`);
    }
    // One more start finishes what the last kill interrupted; a clean stop writes the snapshot.
    const last = await startServe(home, env);
    // A status round trip first: the daemon is then past start-up and handles SIGTERM.
    await statusCli(daemonAddress(last.url, last.socket));
    const stopped = await last.stop();
    if (stopped.code !== 0) {
      throw new Error(`the final stop exited ${stopped.code}: ${stopped.stderr}`);
    }
    const found = await storedCounts(home, next);
    const result = judge(options.kills, acked, found, (performance.now() - started) / 1000);
    return { ...result, recalls: model.recalls() };
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

function pick(rand: () => number, min: number, max: number): number {
  return min + rand() * (max - min);
}

/** Start the daemon, chat from every sender until `lifeMs` after ready, then SIGKILL it. */
async function liveAndKill(
  home: string,
  env: Record<string, string>,
  lifeMs: number,
  nextChat: () => number,
  onAck: (n: number) => void,
): Promise<number> {
  const daemon = await startServe(home, env);
  const address = daemonAddress(daemon.url, daemon.socket);
  let alive = true;
  let count = 0;
  const sse = await SseChats.open(address).catch(() => undefined);
  const senders = SENDERS.map(async (kind) => {
    while (alive) {
      const n = nextChat();
      try {
        const ack = await send(kind, address, sse, userText(n));
        if (ack.status === "ok" && ack.text === replyText(n) && alive) {
          onAck(n);
          count++;
        }
      } catch {
        if (!alive) return; // killed under this chat: it was never acknowledged
        await new Promise((r) => setTimeout(r, 20)); // not ready yet (the socket, say)
      }
    }
  });
  const agent = await daemon.agentPid();
  await new Promise((r) => setTimeout(r, lifeMs));
  daemon.child.kill("SIGKILL"); // the guard first, so that nothing restarts the agent
  Deno.kill(agent, "SIGKILL");
  alive = false;
  await daemon.stop();
  await Promise.all(senders);
  if (sse) await sse[Symbol.asyncDispose]();
  return count;
}

function send(
  kind: (typeof SENDERS)[number],
  address: DaemonAddress,
  sse: SseChats | undefined,
  text: string,
): Promise<Acknowledged> {
  if (kind === "web") return chatWeb(address, text);
  if (kind === "cli") return chatCli(address, text);
  if (kind === "openai") return chatOpenAI(address, text);
  if (!sse) return chatWeb(address, text);
  return sse.chat(text);
}

/** How often each chat's input and reply appear: window events and document contents. */
interface Found {
  inputs: number[];
  replies: number[];
  inDocuments: Set<number>;
}

async function storedCounts(home: string, chats: number): Promise<Found> {
  const found: Found = {
    inputs: Array(chats).fill(0),
    replies: Array(chats).fill(0),
    inDocuments: new Set(),
  };
  const memory = join(home, "memory");
  const journal = await Deno.readTextFile(join(memory, "context.journal")).catch(() => "");
  if (journal.trim() !== "") throw new Error("A clean stop left journal records behind");
  // No file: the window was never written (everything in it is lost).
  const text = await Deno.readTextFile(join(memory, "context.json")).catch(() => '{"events":[]}');
  const snapshot = JSON.parse(text) as {
    events: { role: string; input?: string; response?: string }[];
  };
  // Per stored item: a re-archived recalled document repeats its text (summary / content).
  const count = (text: string, into: "doc" | "context") => {
    const tokens = new Set([...text.matchAll(/\bsoak ([ur])(\d+)x\b/g)].map((m) => m[1]! + m[2]!));
    for (const token of tokens) {
      const kind = token[0];
      const i = Number(token.slice(1));
      if (i >= chats) continue;
      (kind === "u" ? found.inputs : found.replies)[i]!++;
      if (into === "doc") found.inDocuments.add(i);
    }
  };
  for (const e of snapshot.events) {
    // A user event holds its input, an agent event its reply (its tool outputs are not memory
    // of the chat), a recalled document its content (the response, or the input when the
    // content is its own summary).
    if (e.role === "user") count(e.input ?? "", "context");
    else if (e.role === "agent") count(e.response ?? "", "context");
    else count(e.response ?? e.input ?? "", "context");
  }
  for await (const entry of Deno.readDir(join(memory, "docs"))) {
    if (!entry.name.endsWith(".json")) continue;
    const doc = JSON.parse(await Deno.readTextFile(join(memory, "docs", entry.name))) as {
      content: string;
    };
    count(doc.content, "doc");
  }
  return found;
}

function judge(
  kills: number,
  acked: Map<number, number>,
  found: Found,
  durationS: number,
): Omit<KillLoopResult, "recalls"> {
  const examples: string[] = [];
  const lossyLives = new Set<number>();
  let lost = 0;
  for (const [n, life] of acked) {
    if (found.inputs[n] === 0 || found.replies[n] === 0) {
      lost++;
      lossyLives.add(life);
      if (examples.length < 5) examples.push(`lost chat ${n} (life ${life})`);
    }
  }
  let doubled = 0;
  for (let n = 0; n < found.inputs.length; n++) {
    if (found.inputs[n]! > 1 || found.replies[n]! > 1) {
      doubled++;
      if (examples.length < 10) {
        examples.push(`chat ${n} stored ${found.inputs[n]}× / reply ${found.replies[n]}×`);
      }
    }
  }
  const inDocuments = [...acked.keys()].filter((n) => found.inDocuments.has(n)).length;
  return {
    kills,
    acknowledged: acked.size,
    lost,
    doubled,
    killsWithLoss: lossyLives.size,
    inDocuments,
    durationS: Math.round(durationS * 10) / 10,
    examples,
  };
}
