/**
 * The ten provider clients under the wire conformance suite, built the way the daemon builds
 * them (adapters/mod.ts): the native openai and ollama clients, and the bundled Lua adapters
 * through one LuaAdapterRuntime. A client reads the fixture families named here.
 */
import { LuaAdapterRuntime, OllamaProvider, OpenAIProvider } from "../../../adapters/mod.ts";
import { type Provider, silentLogger, type SourceConfig } from "../../../core/mod.ts";

/** One client and what it is tested against. */
export interface ConformanceClient {
  /** The adapter name a user writes in `core.llm.sources.<name>.adapter`. */
  adapter: string;
  /** Fixture families (folders of tests/fixtures/wire/) this client must read. */
  families: readonly string[];
  model: string;
  /** Paths the client must call, below the base URL, streamed and not. */
  streamPath: string;
  chatPath: string;
  build(baseUrl: string): Provider;
}

const runtime = new LuaAdapterRuntime({ logger: silentLogger });

function source(adapter: string, baseUrl: string, model: string): SourceConfig {
  return { name: "wire", adapter, baseUrl, model, apiKey: "key-1", enabled: true };
}

function lua(
  adapter: string,
  families: string[],
  model: string,
  paths?: Partial<ConformanceClient>,
) {
  return {
    adapter,
    families,
    model,
    streamPath: "/chat/completions",
    chatPath: "/chat/completions",
    ...paths,
    build: (baseUrl: string) => runtime.resolve(adapter)!(source(adapter, baseUrl, model), {}),
  } satisfies ConformanceClient;
}

/** Every client, by adapter name. */
export const CLIENTS: readonly ConformanceClient[] = [
  {
    adapter: "openai",
    families: ["openai"],
    model: "gpt-4o-mini",
    streamPath: "/chat/completions",
    chatPath: "/chat/completions",
    build: (baseUrl) => new OpenAIProvider({ source: source("openai", baseUrl, "gpt-4o-mini") }),
  },
  lua("lua:openai", ["openai"], "gpt-4o-mini"),
  lua("deepseek", ["deepseek"], "deepseek-reasoner"),
  lua("anthropic", ["anthropic"], "claude-sonnet-4-5", {
    streamPath: "/v1/messages",
    chatPath: "/v1/messages",
  }),
  lua("gemini", ["gemini"], "gemini-2.5-flash", {
    streamPath: "/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    chatPath: "/models/gemini-2.5-flash:generateContent",
  }),
  lua("mistral", ["mistral"], "magistral-medium-latest"),
  lua("groq", ["groq"], "openai/gpt-oss-20b"),
  lua("github", ["github"], "openai/gpt-4.1"),
  {
    adapter: "ollama",
    families: ["ollama"],
    model: "qwen3:8b",
    streamPath: "/api/chat",
    chatPath: "/api/chat",
    build: (baseUrl) => new OllamaProvider({ source: source("ollama", baseUrl, "qwen3:8b") }),
  },
  lua("lua:ollama", ["ollama"], "qwen3:8b", { streamPath: "/api/chat", chatPath: "/api/chat" }),
];

/** The client of `adapter`; throws when the table has none. */
export function client(adapter: string): ConformanceClient {
  const found = CLIENTS.find((c) => c.adapter === adapter);
  if (!found) throw new TypeError(`No conformance client "${adapter}"`);
  return found;
}
