/**
 * The kernel's LLM source tools, `llm_list_sources` and `llm_set_source`: the model can see
 * the configured sources and switch or tune one. Changes go through the ConfigRegistry, which
 * the ProviderManager re-reads on every call, so they apply from the next LLM call on.
 */
import type { ConfigRegistry } from "../config/registry.ts";
import { parseOrder, sourceKey } from "../config/llm_sources.ts";
import { ConfigError, errorMessage } from "../errors.ts";
import type { SourceHealth } from "./manager.ts";
import { z } from "zod";
import type { RegisteredTool, ToolResult } from "../kernel/tools.ts";
import { defineTool } from "../kernel/define_tool.ts";

/** What the LLM tools read and change. */
export interface LlmToolsOptions {
  config: ConfigRegistry;
  /** Health of the enabled sources (ProviderManager.health). */
  health: () => SourceHealth[];
}

/** Fields `llm_set_source` may change (never the API key). */
const FIELDS = [
  ["model", "model"],
  ["adapter", "adapter"],
  ["base_url", "base_url"],
  ["enabled", "enabled"],
  ["context_window", "context_window"],
  ["max_concurrent", "max_concurrent"],
  ["daily_token_cap", "daily_token_cap"],
  ["vision", "vision"],
  ["audio", "audio"],
] as const;

const NO_ARGUMENTS = () => z.object({});

const SET_SOURCE = () =>
  z.object({
    name: z.string().regex(/^[A-Za-z0-9_-]+$/).describe("Source name"),
    primary: z.boolean().optional().describe("Try this source first from now on"),
    model: z.string().optional(),
    adapter: z.string().optional(),
    base_url: z.string().optional(),
    enabled: z.boolean().optional(),
    context_window: z.int().min(0).optional(),
    max_concurrent: z.int().min(1).optional(),
    daily_token_cap: z.int().min(0).optional(),
    vision: z.boolean().optional(),
    audio: z.boolean().optional(),
  });

/** `llm_list_sources` and `llm_set_source`, owned by plugin "core". */
export function llmTools(options: LlmToolsOptions): RegisteredTool[] {
  return [listTool(options), setTool(options)];
}

function listTool({ config, health }: LlmToolsOptions): RegisteredTool {
  return defineTool({
    name: "llm_list_sources",
    description: "List the configured LLM sources in the order they are tried, with their " +
      "model, adapter, state, capabilities and today's token use.",
    input: NO_ARGUMENTS,
    parallelSafe: true,
    handler: () => {
      const byName = new Map(health().map((h) => [h.name, h]));
      const sources = config.allLlmSources().map((s, i) => {
        const h = byName.get(s.name);
        return {
          position: i + 1,
          name: s.name,
          adapter: s.adapter,
          model: s.model,
          enabled: s.enabled,
          state: h?.state ?? (s.enabled ? "ok" : "disabled"),
          vision: s.vision ?? false,
          audio: s.audio ?? false,
          maxConcurrent: h?.maxConcurrent,
          tokensToday: h?.tokensToday ?? 0,
          dailyTokenCap: s.dailyTokenCap ?? 0,
          ...(h?.lastError ? { lastError: h.lastError } : {}),
        };
      });
      if (sources.length === 0) return "No LLM source is configured.";
      return JSON.stringify(sources, null, 1);
    },
  });
}

function setTool({ config }: LlmToolsOptions): RegisteredTool {
  return defineTool({
    name: "llm_set_source",
    description: "Switch to or change an LLM source: make it the first one tried " +
      "(primary: true), enable or disable it, or change its model, adapter, base URL, " +
      "window, concurrency, daily token cap or capability flags. Applies from the next LLM call.",
    input: SET_SOURCE,
    handler: (args): ToolResult => {
      const name = args.name;
      const known = config.allLlmSources().some((s) => s.name === name);
      if (!known && (args.model === undefined || args.base_url === undefined)) {
        return {
          content: `No LLM source named "${name}"; give model and base_url to add it`,
          isError: true,
        };
      }
      const changed: string[] = [];
      try {
        for (const [arg, field] of FIELDS) {
          if (args[arg] === undefined) continue;
          config.set(sourceKey(name, field), args[arg]);
          changed.push(`${field}=${JSON.stringify(args[arg])}`);
        }
        if (args.primary === true) {
          const rest = parseOrder(config.get<string>("core.llm.order")).filter((n) => n !== name);
          config.set("core.llm.order", [name, ...rest].join(","));
          changed.push("first in core.llm.order");
        }
      } catch (error) {
        const message = error instanceof ConfigError ? error.message : errorMessage(error);
        return { content: `Cannot change source "${name}": ${message}`, isError: true };
      }
      if (changed.length === 0) return { content: "Nothing to change.", isError: true };
      return {
        content: `Source "${name}" updated (${changed.join(", ")}); ` +
          "applies from the next LLM call.",
      };
    },
  });
}
