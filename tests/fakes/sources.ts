/** LLM source configs for tests: an OpenAI-compatible source named `name` on a fake server. */
import type { SourceConfig } from "../../core/mod.ts";
import type { FakeLLMServer } from "../fixtures/fake_llm.ts";

/** Source `name` at `server`, model `model-<name>`, enabled; `extra` overrides any field. */
export function fakeSource(
  name: string,
  server: FakeLLMServer,
  extra: Partial<SourceConfig> = {},
): SourceConfig {
  return {
    name,
    adapter: "openai",
    baseUrl: server.url,
    model: `model-${name}`,
    enabled: true,
    ...extra,
  };
}
