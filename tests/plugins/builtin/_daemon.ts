/** A real daemon over a scripted OpenAI-compatible fake, for the built-in plugins' end-to-end tests. */
import {
  type FakeLLMServer,
  type FakeToolCall,
  reply,
  startFakeOpenAI,
} from "../../fixtures/fake_llm.ts";
import { runMain, type RunningDaemon, startServe } from "../../fakes/daemon.ts";

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
}

/** Start a daemon in a fresh home with `env` (besides the fake LLM's). */
export async function startPluginDaemon(env: Record<string, string> = {}): Promise<PluginDaemon> {
  // Turns nobody scripted (a plugin's notice) get a plain answer.
  const server = startFakeOpenAI({ fallback: () => reply.text("noted") });
  const home = await Deno.makeTempDir({ prefix: "homeagent-builtin-" });
  let daemon: RunningDaemon;
  try {
    daemon = await startServe(home, {
      HOMEAGENT_LLM_BASE_URL: server.url,
      HOMEAGENT_LLM_MODEL: "fake-model",
      ...env,
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
      const first = server.requests.length;
      server.enqueue(...calls.map((call) => reply.toolCalls([call])), reply.text("done"));
      const chat = await runMain(["chat", "--home", home, "go"]);
      if (chat.code !== 0) throw new Error(`chat failed: ${chat.stderr}`);
      return server.requests.slice(first + 1).map((r) => String(r.body.messages.at(-1)!.content));
    },
    async [Symbol.asyncDispose]() {
      await daemon.stop();
      await server.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}
