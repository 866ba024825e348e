/**
 * Token figures of issue 16, from the requests a real daemon sends (`main.ts serve` on a fresh
 * home, every built-in plugin enabled as they are by default) to a fake OpenAI server, counted
 * with gpt-tokenizer (o200k_base). The source is a local model with an 8,192-token window,
 * the daemon counting by its calibrated estimate as it does for any model of no known family.
 *
 * - `prompt_tokens_hi`: the whole request for "hi" (system prompt, the message, tool schemas).
 * - `tool_schema_tokens_always`: of which the tool schemas, as sent (the OpenAI wire JSON).
 * - `prompt_tokens_per_turn`: the whole first request of a turn with memory: 300 facts about 10
 *   people, 200 documents and a full window of 200 events (`core.agent.max_context_size` 200).
 * - `prompt_memory_tokens_per_turn`: of which the memory sections of the system prompt.
 * - `prompt_tools_per_hi`: how many tool schemas the "hi" request carries.
 */
import { type FakeRequestBody, reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { wirePromptTokens } from "../fakes/wire_tokens.ts";
import { startServe } from "../fakes/daemon.ts";
import { configureHome, seedMemory, sourceSettings } from "../fakes/home.ts";
import type { Figure } from "./_figure.ts";

/** Ask `text` on channel "cli" of a daemon on `home`; the first request the model got. */
async function firstRequest(home: string, text: string): Promise<FakeRequestBody> {
  await using server = startFakeOpenAI({ fallback: reply.text("Hello!") });
  await configureHome(home, sourceSettings("local", server.url, "llama3.1:8b", 8192));
  await using daemon = await startServe(home, { HOMEAGENT_LOG_LEVEL: "warn" });
  const url = new URL(daemon.url);
  const response = await fetch(`${url.origin}/api/v1/chat?wait=1`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${url.searchParams.get("token")}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ text, channel: "cli" }),
  });
  const answer = await response.json();
  if (answer.status !== "ok") throw new Error(`The daemon answered ${JSON.stringify(answer)}`);
  return server.requests[0]!.body;
}

async function withHome<T>(work: (home: string) => Promise<T>): Promise<T> {
  const home = await Deno.makeTempDir({ prefix: "homeagent-bench-tokens-" });
  try {
    return await work(home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

async function hiFigures(): Promise<Record<string, Figure>> {
  const body = await withHome((home) => firstRequest(home, "hi"));
  const { total, tools } = await wirePromptTokens(body);
  return {
    prompt_tokens_hi: { value: total, unit: "tokens" },
    tool_schema_tokens_always: { value: tools, unit: "tokens" },
    prompt_tools_per_hi: {
      value: (body.tools as unknown[] | undefined)?.length ?? 0,
      unit: "tools",
    },
  };
}

async function turnFigures(): Promise<Record<string, Figure>> {
  const body = await withHome(async (home) => {
    await configureHome(home, { "core.agent.max_context_size": 200 });
    await seedMemory(home, { facts: 300, documents: 200, events: 200 });
    return await firstRequest(
      home,
      "Ann and 小明 want to plan the weekend: does Ann still like jazz, and where does she live?",
    );
  });
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const system = String(body.messages[0]!.content);
  const memory = system.slice(
    Math.max(0, system.indexOf("[Memory Index]")),
    Math.max(0, system.indexOf("[Conversation so far]")),
  );
  return {
    prompt_tokens_per_turn: { value: (await wirePromptTokens(body)).total, unit: "tokens" },
    prompt_memory_tokens_per_turn: { value: countTokens(memory), unit: "tokens" },
  };
}

/** The figures of this module. */
export const figures = {
  "prompt_tokens_hi": hiFigures,
  "tool_schema_tokens_always": hiFigures,
  "prompt_tools_per_hi": hiFigures,
  "prompt_tokens_per_turn": turnFigures,
  "prompt_memory_tokens_per_turn": turnFigures,
};
