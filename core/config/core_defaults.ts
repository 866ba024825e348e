/**
 * The kernel's own settings: `core.agent.*`, `core.llm.*`, `core.web.*`. Memory, the adapters
 * and the plugins register theirs (memory/settings.ts, adapters/lua/settings.ts, plugins/).
 */
import { z } from "zod";
import type { ConfigRegistry } from "./registry.ts";
import { parseOrder } from "./llm_sources.ts";
import { DEFAULT_SECTION_SHARES, parseSectionShares } from "../prompt/budget.ts";

const NAME = /^[A-Za-z0-9_-]+$/;

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

// Shared schemas, handed to define() as functions like the rest: a schema given built has its
// default checked at define, which built and ran each of them (~5 ms) at every start.
const baseUrl = z.lazy(() =>
  z.string().refine(
    (v) => v === "" || isHttpUrl(v),
    "expected an http:// or https:// URL",
  )
);
const sourceOrder = z.lazy(() =>
  z.string().refine(
    (v) => parseOrder(v).every((name) => NAME.test(name)),
    "expected a comma-separated list of source names",
  )
);
const adapterName = z.lazy(() =>
  z.string().refine(
    (v) => /^(lua:)?[a-z0-9_-]+$/.test(v),
    'expected an adapter name such as "openai", "anthropic" or "lua:openai"',
  )
);

/**
 * Define the kernel's settings on `registry`, LLM sources as `core.llm.sources.*.<field>`
 * patterns. Throws TypeError when called twice on the same registry.
 */
export function registerCoreDefaults(registry: ConfigRegistry): void {
  registry.define({
    key: "core.agent.max_tool_turns",
    schema: () => z.int().min(1).max(100),
    default: 10,
    description: "Most LLM calls one turn may make while the model keeps calling tools",
  });
  registry.define({
    key: "core.agent.tool_timeout_ms",
    schema: () => z.int().min(1).max(3_600_000),
    default: 60_000,
    description: "Milliseconds a tool call may run before it is cancelled",
  });
  registry.define({
    key: "core.agent.stop_grace_ms",
    schema: () => z.int().min(0).max(600_000),
    default: 15_000,
    description: "Milliseconds a running turn may take to finish when the daemon gets SIGTERM " +
      "before it is cancelled (SIGINT cancels at once)",
  });
  registry.define({
    key: "core.agent.max_context_size",
    schema: () => z.int().min(1).max(10_000),
    default: 30,
    description:
      "Exchanges (an input with its reply) a prune keeps on relevance beside the newest 10 events",
  });
  registry.define({
    key: "core.agent.queue_capacity",
    schema: () => z.int().min(1).max(1_000_000),
    default: 256,
    description: "Most inputs that may wait in the ready queue; beyond it inputs are refused aloud",
  });
  registry.define({
    key: "core.agent.preempt_cooldown_ms",
    schema: () => z.int().min(0).max(3_600_000),
    default: 2000,
    description: "Milliseconds after a suspended task resumes during which nothing may preempt it",
  });
  registry.define({
    key: "core.agent.offload_enabled",
    schema: () => z.boolean(),
    default: false,
    description: "Backlog triage: when busy long with inputs waiting, a triage assistant " +
      "answers simple ones and tells the rest to wait",
  });
  registry.define({
    key: "core.agent.offload_busy_after",
    schema: () => z.int().min(1000).max(86_400_000),
    default: 300_000,
    description: "Milliseconds the agent must have been busy before backlog triage starts",
  });
  registry.define({
    key: "core.agent.offload_min_pending",
    schema: () => z.int().min(1).max(10_000),
    default: 3,
    description: "Fewest queued plain inputs that start backlog triage",
  });
  registry.define({
    key: "core.agent.offload_max_residents",
    schema: () => z.int().min(1).max(8),
    default: 2,
    description: "Most triage assistants working at once",
  });
  registry.define({
    key: "core.agent.stream",
    schema: () => z.boolean(),
    default: true,
    description: "Stream replies token by token where the provider supports it",
  });
  registerToolDefaults(registry);
  registry.define({
    key: "core.llm.order",
    schema: () => sourceOrder,
    default: "",
    description: "Comma list of source names tried first, in order; the rest follow as added",
  });
  registry.define({
    key: "core.llm.retry_delay_ms",
    schema: () => z.int().min(0).max(60_000),
    default: 500,
    description: "Pause before the one retry of a retryable provider failure",
  });
  registry.define({
    key: "core.web.host",
    schema: () => z.string().min(1),
    default: "127.0.0.1",
    description: "Address the web server binds; a non-loopback address needs a token",
    restart: true,
  });
  registry.define({
    key: "core.web.port",
    schema: () => z.int().min(0).max(65_535),
    default: 7800,
    description: "TCP port of the web server (0 picks a free one)",
    restart: true,
  });
  registry.define({
    key: "core.web.token",
    schema: () => z.string(),
    default: "",
    description: "Bearer token of the web API; serve generates one when empty",
    secret: true,
  });
  registerSourcePatterns(registry);
}

const toolNames = z.lazy(() =>
  z.string().refine(
    (v) =>
      v.split(",").map((n) => n.trim()).every((n) => n === "" || /^[a-zA-Z0-9_-]{1,64}$/.test(n)),
    "expected a comma-separated list of tool names",
  )
);

const shares = z.lazy(() =>
  z.string().refine(
    (v) => {
      try {
        parseSectionShares(v);
        return true;
      } catch {
        return false;
      }
    },
    "expected <section>=<percent>,… over persona, graph, documents, knowledge, skills, other, timeline, adding up to at most 100",
  )
);

/** The tool catalog's and the prompt budget's settings (issue 16, docs/configuration.md). */
function registerToolDefaults(registry: ConfigRegistry): void {
  registry.define({
    key: "core.prompt.shares",
    schema: () => shares,
    default: Object.entries(DEFAULT_SECTION_SHARES).map(([k, v]) => `${k}=${v}`).join(","),
    description: "Each system prompt section's share of the token budget, in percent of what the " +
      "request's messages and tools leave of the working band; a section over its share is cut " +
      "by relevance",
  });
  registry.define({
    key: "core.tools.always",
    schema: () => toolNames,
    default: "memory_recall,memory_commit,doc_query,tool_search,tool_load",
    description: "Tools whose schemas every request carries (with the reply channel's send " +
      "tool); the others are found with tool_search and loaded with tool_load",
  });
  registry.define({
    key: "core.tools.pinned",
    schema: () => toolNames,
    default: "",
    description: "More tools to send with every request, comma-separated",
  });
  registry.define({
    key: "core.tools.load_turns",
    schema: () => z.int().min(0).max(100),
    default: 3,
    description: "Turns after the loading one that a tool loaded with tool_load stays",
  });
  registry.define({
    key: "core.tools.all_schemas_window",
    schema: () => z.int().min(0),
    default: 65_536,
    description:
      "A source with a context window of at least this many tokens is sent every tool schema; " +
      "0 = never",
  });
  registry.define({
    key: "core.tools.search_limit",
    schema: () => z.int().min(1).max(50),
    default: 8,
    description: "Most tools one tool_search lists",
  });
}

function registerSourcePatterns(registry: ConfigRegistry): void {
  const field = (name: string) => `core.llm.sources.*.${name}`;
  registry.define({
    key: field("adapter"),
    schema: () => adapterName,
    default: "openai",
    description:
      "Adapter speaking this source's wire format: openai, ollama (native), anthropic, gemini, " +
      "deepseek, mistral, groq, github (Lua), lua:<name> for any script in <home>/adapters",
  });
  registry.define({
    key: field("base_url"),
    schema: () => baseUrl,
    default: "",
    description: "Base URL as the provider's own SDK takes it, e.g. https://api.openai.com/v1",
  });
  registry.define({
    key: field("api_key"),
    schema: () => z.string(),
    default: "",
    description: "API key sent to this source; empty for local servers",
    secret: true,
  });
  registry.define({
    key: field("model"),
    schema: () => z.string(),
    default: "",
    description: "Model name requested from this source",
  });
  registry.define({
    key: field("context_window"),
    schema: () => z.int().min(0),
    default: 0,
    description: "Context window in tokens; 0 derives it from the model name",
  });
  registry.define({
    key: field("enabled"),
    schema: () => z.boolean(),
    default: true,
    description: "Whether this source is used",
  });
  registry.define({
    key: field("max_concurrent"),
    schema: () => z.int().min(1).max(1000),
    default: 8,
    description: "Most calls to this source in flight at once; more wait their turn",
  });
  registry.define({
    key: field("vision"),
    schema: () => z.boolean(),
    default: false,
    description: "The model accepts images",
  });
  registry.define({
    key: field("audio"),
    schema: () => z.boolean(),
    default: false,
    description: "The model accepts audio",
  });
  registry.define({
    key: field("daily_token_cap"),
    schema: () => z.int().min(0),
    default: 0,
    description:
      "Tokens (prompt + completion) per local day after which the source is skipped; 0 = none",
  });
  registry.define({
    key: field("price_input"),
    schema: () => z.number().min(0),
    default: 0,
    description: "Price per million prompt tokens, in core.llm.currency; 0 = not priced",
  });
  registry.define({
    key: field("price_output"),
    schema: () => z.number().min(0),
    default: 0,
    description: "Price per million completion tokens, in core.llm.currency; 0 = not priced",
  });
  registry.define({
    key: "core.llm.causes.*.daily_token_cap",
    schema: () => z.int().min(0),
    default: 0,
    description: "Tokens per local day the LLM calls of one cause may use (an input source such " +
      "as web, cli, timer, mcp or a chat plugin; heartbeat, resident, child, triage); past it " +
      "they are refused; 0 = none",
  });
  registry.define({
    key: "core.llm.currency",
    schema: () => z.string().min(1).max(8),
    default: "USD",
    description: "The currency of the sources' prices, as shown by status and homeagent usage",
  });
}
