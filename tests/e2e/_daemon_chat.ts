/**
 * Drive a real daemon's tools with a scripted LLM: each `call` makes the fake model call one
 * tool, then answer with that tool's result verbatim, so the test reads what the tool returned.
 * The tool call is the answer to the request that carries the call's chat text, not to whatever
 * request comes next: the daemon's own loops (memory upkeep after a restart, a late timer) may
 * ask the model in between.
 */
import { join } from "node:path";
import {
  type FakeLLMServer,
  type FakeRequest,
  type FakeToolCall,
  reply,
  startFakeOpenAI,
} from "../fixtures/fake_llm.ts";
import { type RunningDaemon, startServe } from "../fakes/daemon.ts";
import { TurnScripts } from "../fixtures/turn_script.ts";

/** The last tool result the model was sent, or the last message's content. */
export function lastToolResult(request: FakeRequest): string {
  const last = request.body.messages.at(-1)!;
  return String(last.content ?? "");
}

/** A daemon on a temporary home with a fake model that echoes tool results. */
export interface ToolDaemon extends AsyncDisposable {
  home: string;
  daemon: RunningDaemon;
  server: FakeLLMServer;
  /** Base URL and token of the web API. */
  base: string;
  token: string;
  /** Make the model call `tool` with `args` in one chat turn; resolves with the reply text. */
  call(tool: string, args: Record<string, unknown>): Promise<string>;
  /** One turn in which the model makes all of `calls` in one message. */
  calls(calls: { name: string; arguments: Record<string, unknown> }[]): Promise<string>;
  /** The same turn as `call`, without waiting; resolves with the turn id. */
  start(tool: string, args: Record<string, unknown>): Promise<string>;
  /** A JSON API call with the token. */
  api(
    path: string,
    init?: { method?: string; body?: unknown },
    // deno-lint-ignore no-explicit-any
  ): Promise<{ status: number; body: any }>;
  /** Stop the daemon and start it again on the same home. */
  restart(env?: Record<string, string>): Promise<void>;
}

/** Start a ToolDaemon; `setup` may write files into the home before the daemon starts. */
export async function startToolDaemon(
  setup?: (home: string) => Promise<void>,
  env: Record<string, string> = {},
): Promise<ToolDaemon> {
  const home = await Deno.makeTempDir({ prefix: "homeagent-tools-" });
  const turns = new TurnScripts();
  const server = startFakeOpenAI({
    fallback: (request) => turns.answer(request) ?? reply.text(lastToolResult(request)),
  });
  /** A chat text whose turn's first call makes `calls`; the model then echoes the result. */
  const script = (label: string, calls: FakeToolCall[]) => {
    const text = turns.text(label);
    turns.add(text, [reply.toolCalls(calls)]);
    return text;
  };
  await setup?.(home);
  const llmEnv = { HOMEAGENT_LLM_BASE_URL: server.url, HOMEAGENT_LLM_MODEL: "fake-model" };
  let daemon = await startServe(home, { ...llmEnv, ...env });
  const parse = () => {
    const url = new URL(daemon.url);
    return { base: url.origin, token: url.searchParams.get("token")! };
  };
  const self: ToolDaemon = {
    home,
    daemon,
    server,
    ...parse(),
    async api(path, init = {}) {
      const response = await fetch(`${self.base}${path}`, {
        method: init.method ?? (init.body === undefined ? "GET" : "POST"),
        headers: { authorization: `Bearer ${self.token}`, "content-type": "application/json" },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      return { status: response.status, body: await response.json() };
    },
    async call(tool, args) {
      const text = script(`use ${tool}`, [{ name: tool, arguments: args }]);
      const result = await self.api("/api/v1/chat?wait=1", { body: { text } });
      return String(result.body.text);
    },
    async calls(calls) {
      const text = script("use tools", calls);
      const result = await self.api("/api/v1/chat?wait=1", { body: { text } });
      return String(result.body.text);
    },
    async start(tool, args) {
      const text = script(`use ${tool}`, [{ name: tool, arguments: args }]);
      const result = await self.api("/api/v1/chat", { body: { text } });
      return String(result.body.turnId);
    },
    async restart(more = {}) {
      await daemon.stop();
      daemon = await startServe(home, { ...llmEnv, ...env, ...more });
      self.daemon = daemon;
      Object.assign(self, parse());
    },
    async [Symbol.asyncDispose]() {
      await daemon.stop();
      await server.close();
      await Deno.remove(home, { recursive: true });
    },
  };
  return self;
}

/** `<home>/agentfs/<name>`. */
export function inAgentfs(home: string, ...names: string[]): string {
  return join(home, "agentfs", ...names);
}
