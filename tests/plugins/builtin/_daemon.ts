/** A real daemon over a scripted OpenAI-compatible fake, for the built-in plugins' end-to-end tests. */
import { join } from "node:path";
import {
  type FakeLLMServer,
  type FakeToolCall,
  reply,
  startFakeOpenAI,
} from "../../fixtures/fake_llm.ts";
import { runMain, type RunningDaemon, startServe } from "../../fakes/daemon.ts";
import { TurnScripts } from "../../fixtures/turn_script.ts";
import { copyFixture } from "../host/_support.ts";

/** A temporary home, a fake LLM and a daemon over both; disposing stops and removes all. */
export interface PluginDaemon extends AsyncDisposable {
  home: string;
  server: FakeLLMServer;
  daemon: RunningDaemon;
  /**
   * One chat turn in which the model makes `calls` (one call per round, in order) and then
   * answers "done"; returns the tool results the model saw, in order.
   */
  toolRun(calls: FakeToolCall[]): Promise<string[]>;
  /** Call the web API with the daemon's token: GET, or POST with `body`. */
  api(path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
}

/** Options of startPluginDaemon. */
export interface PluginDaemonOptions {
  /** Environment besides the fake LLM's. */
  env?: Record<string, string>;
  /** Settings stored before the daemon starts (`homeagent config set KEY VALUE`). */
  config?: Record<string, string>;
  /** Test plugins (tests/fixtures/plugins/NAME) installed in the home before it starts. */
  plugins?: string[];
}

/** Start a daemon in a fresh home over a scripted fake LLM. */
export async function startPluginDaemon(options: PluginDaemonOptions = {}): Promise<PluginDaemon> {
  // Turns nobody scripted (a plugin's notice) get a plain answer.
  const turns = new TurnScripts();
  const server = startFakeOpenAI({
    fallback: (request) => turns.answer(request) ?? reply.text("noted"),
  });
  const home = await Deno.makeTempDir({ prefix: "homeagent-builtin-" });
  let daemon: RunningDaemon;
  try {
    for (const name of options.plugins ?? []) await copyFixture(join(home, "plugins"), name);
    for (const [key, value] of Object.entries(options.config ?? {})) {
      const set = await runMain(["config", "set", key, value, "--home", home]);
      if (set.code !== 0) throw new Error(`config set ${key} failed: ${set.stderr}`);
    }
    daemon = await startServe(home, {
      HOMEAGENT_LLM_BASE_URL: server.url,
      HOMEAGENT_LLM_MODEL: "fake-model",
      ...options.env,
    });
  } catch (error) {
    await server.close();
    await Deno.remove(home, { recursive: true });
    throw error;
  }
  return {
    home,
    server,
    daemon,
    async toolRun(calls) {
      const text = turns.text("go");
      turns.add(text, [...calls.map((call) => reply.toolCalls([call])), reply.text("done")]);
      const chat = await runMain(["chat", "--home", home, text]);
      if (chat.code !== 0) throw new Error(`chat failed: ${chat.stderr}`);
      return turns.finish(text);
    },
    async api(path, body) {
      const url = new URL(daemon.url);
      const response = await fetch(new URL(path, url.origin), {
        method: body === undefined ? "GET" : "POST",
        headers: {
          authorization: `Bearer ${url.searchParams.get("token")}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    async [Symbol.asyncDispose]() {
      await daemon.stop();
      await server.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}
