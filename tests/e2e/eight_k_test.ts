/**
 * Issue 16's "done when": a real daemon on a fresh home serves a 50-turn conversation from a
 * local model with an 8,192-token window, with memory (facts committed and recalled), documents
 * (the window archives, doc_query brings them back) and plugin tools (found with tool_search,
 * files written and read back), without one overflow or one silent cut. The fake server speaks
 * the OpenAI wire format and refuses, as a real one does, any request that leaves its reply no
 * room in the window, counting with both OpenAI tokenizers and taking the larger.
 */
import assert from "node:assert/strict";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { type FakeReply, type FakeRequest, reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { startServe } from "../fakes/daemon.ts";
import { configureHome, sourceSettings } from "../fakes/home.ts";

const WINDOW = 8192;
/** What the server keeps for its own answer: a request above WINDOW − this is refused. */
const REPLY_ROOM = 700;

function requestTokens(request: FakeRequest): number {
  const text =
    request.body.messages.map((m) =>
      `${m.role}\n${String(m.content ?? "")}${m.tool_calls ? JSON.stringify(m.tool_calls) : ""}`
    ).join("\n") + JSON.stringify(request.body.tools ?? []);
  const ordinary = { disallowedSpecial: new Set<string>() };
  return Math.max(cl100k(text, ordinary), o200k(text, ordinary)) + 4 * request.body.messages.length;
}

const TOPICS = [
  "the garden and the tomatoes",
  "Ann's new job in Bergen",
  "小明的跑步计划和马拉松",
  "the broken bicycle chain",
  "妈妈的生日晚餐在北京",
  "jazz records from the sixties",
  "the leaking kitchen tap",
  "Bo's piano lessons on Tuesdays",
];

const prose = (turn: number, words: number) =>
  Array.from(
    { length: words },
    (_, i) => ["we", "talked", "about", "it", `item${turn}x${i}`][i % 5],
  )
    .join(" ");

const userText = (turn: number) => {
  const topic = TOPICS[turn % TOPICS.length]!;
  // Every seventh message pastes a long text, as owners do.
  const paste = turn % 7 === 0 ? ` Here are my notes: ${prose(turn, 2000)}` : "";
  return `Turn ${turn}: tell me more about ${topic}.${paste}`;
};

/** What the scripted model does in each round of turn `turn`. */
function script(turn: number, round: number, request: FakeRequest): FakeReply {
  const tools = new Set(
    ((request.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name),
  );
  const topic = TOPICS[turn % TOPICS.length]!;
  const answer = () => reply.text(`About ${topic}: ${prose(turn, 320)}`);
  const call = (name: string, args: Record<string, unknown>) =>
    reply.toolCalls([{ name, arguments: args }]);
  switch (turn % 6) {
    case 0:
      return round === 0
        ? call("memory_commit", {
          triples: [{ subject: "Ann", predicate: "likes", object: `${topic} ${turn}` }],
          sentence_text: `Ann likes ${topic}.`,
        })
        : answer();
    case 1:
      return round === 0 ? call("doc_query", { query: topic }) : answer();
    case 2:
      if (round === 0 && !tools.has("files_write")) {
        return call("tool_search", { query: "write a text file" });
      }
      if (round === 1 && !tools.has("files_write")) {
        return call("tool_load", { names: ["files_write"] });
      }
      if (round <= 2) {
        return call("files_write", {
          path: `notes/turn-${turn}.txt`,
          content: prose(turn, 1500),
          mode: "overwrite",
        });
      }
      return answer();
    case 3:
      return round === 0 ? call("files_read", { path: `notes/turn-${turn - 1}.txt` }) : answer();
    case 4:
      return round === 0 ? call("memory_recall", { keywords: ["Ann"] }) : answer();
    default:
      return answer();
  }
}

Deno.test("An 8k-window source serves 50 turns with memory, documents and tools: no overflow, no silent cut", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-8k-" });
  const refused: number[] = [];
  let largest = 0;
  await using server = startFakeOpenAI({
    fallback: (request) => {
      const tokens = requestTokens(request);
      largest = Math.max(largest, tokens);
      if (tokens > WINDOW - REPLY_ROOM) {
        refused.push(tokens);
        return reply.status(
          400,
          `This model's maximum context length is ${WINDOW} tokens. However, your messages ` +
            `resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        );
      }
      const messages = request.body.messages;
      const lastUser = messages.findLastIndex((m) => m.role === "user");
      const turn = Number(/^Turn (\d+):/.exec(String(messages[lastUser]?.content))?.[1]);
      const round = messages.slice(lastUser).filter((m) => m.role === "assistant").length;
      return script(turn, round, request);
    },
  });
  await configureHome(home, sourceSettings("local", server.url, "llama3.1:8b", WINDOW));
  const daemon = await startServe(home, { HOMEAGENT_LOG_LEVEL: "info" });
  let log = "";
  try {
    const url = new URL(daemon.url);
    const api = async (path: string, body?: unknown) => {
      const response = await fetch(`${url.origin}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: {
          authorization: `Bearer ${url.searchParams.get("token")}`,
          "content-type": "application/json",
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return await response.json();
    };
    for (let turn = 1; turn <= 50; turn++) {
      const answer = await api("/api/v1/chat?wait=1", { text: userText(turn), channel: "cli" });
      assert.equal(answer.status, "ok", `turn ${turn}: ${answer.text}`);
    }
    const status = await api("/api/v1/status");
    assert.ok(status.memory.documents > 0, "the window archived turns to documents");
    assert.ok(status.memory.graph.relations > 0, "facts went into the graph");
  } finally {
    log = (await daemon.stop()).stderr;
    await Deno.remove(home, { recursive: true });
  }
  assert.deepEqual(refused, [], `no request over the window (largest ${largest} tokens)`);
  assert.doesNotMatch(log, /Request pruned|Request refused/, "no prune or refusal by the guard");
  const bodies = server.requests.map((r) => JSON.stringify(r.body));
  assert.ok(bodies.every((b) => !b.includes("characters cut to fit")), "no tool result was cut");
  const systems = server.requests.map((r) => String(r.body.messages[0]?.content ?? ""));
  assert.ok(systems.some((s) => s.includes("[Memory Index]")), "recalled facts reached the prompt");
  assert.ok(systems.some((s) => / events not shown\)/.test(s)), "what the budget left out is said");
  assert.ok(server.requests.length >= 100, `${server.requests.length} model calls`);
});
