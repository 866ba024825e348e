/**
 * The MCP client's settings: one server per name under `plugin.mcp.servers.<name>.*`
 * (command/args/env for stdio, url/headers for HTTP), read and checked with zod when a server
 * is (re)started, so a bad entry fails that server alone with a message naming the key.
 */
import { z } from "zod";
import { type ConfigDefinition, HomeAgentError } from "../../../core/mod.ts";

/** The part of the ConfigRegistry the MCP plugin reads. */
export interface McpConfig {
  define<T>(definition: ConfigDefinition<T>): void;
  get<T = unknown>(key: string): T;
  list(prefix?: string): { key: string }[];
}

/** How a server is reached. */
export type McpTransportKind = "stdio" | "http" | "sse";

/** One configured server, validated. */
export interface McpServerConfig {
  name: string;
  transport: McpTransportKind;
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  enabled: boolean;
  /** `transport` auto on a URL: a Streamable HTTP refusal (4xx) falls back to legacy SSE. */
  sseFallback: boolean;
  /** Per-call timeout, ms. */
  timeoutMs: number;
}

/** Server names become tool prefixes (`<server>_<tool>`): short, lowercase, no "_" at the ends. */
export const SERVER_NAME = /^[a-z0-9](?:[a-z0-9-]{0,22}[a-z0-9])?$/;

const PREFIX = "plugin.mcp.servers.";

const stringMap = z.lazy(() => z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/), z.string()));

const KEYS: ConfigDefinition[] = [
  {
    key: `${PREFIX}*.command`,
    schema: () => z.string(),
    default: "",
    description: "Program of a stdio MCP server (found on PATH), e.g. npx",
  },
  {
    key: `${PREFIX}*.args`,
    schema: () => z.array(z.string()),
    default: [],
    description: 'Arguments of the stdio server, a JSON list: ["-y","@scope/server"]',
  },
  {
    key: `${PREFIX}*.env`,
    schema: () => stringMap,
    default: {},
    description: "The stdio server's whole environment besides PATH (it inherits nothing else)",
    secret: true,
  },
  {
    key: `${PREFIX}*.cwd`,
    schema: () => z.string(),
    default: "",
    description: "Working folder of the stdio server (default: the daemon's)",
  },
  {
    key: `${PREFIX}*.url`,
    schema: () => z.string(),
    default: "",
    description: "URL of an HTTP MCP server (Streamable HTTP, or legacy SSE as a fallback)",
  },
  {
    key: `${PREFIX}*.transport`,
    schema: () => z.enum(["auto", "stdio", "http", "sse"]),
    default: "auto",
    description: "stdio, http or sse; auto: stdio with a command, else http falling back to sse",
  },
  {
    key: `${PREFIX}*.headers`,
    schema: () => stringMap,
    default: {},
    description: "HTTP headers sent to the server, a JSON object (e.g. Authorization)",
    secret: true,
  },
  {
    key: `${PREFIX}*.enabled`,
    schema: () => z.boolean(),
    default: true,
    description: "Whether the MCP server is started",
  },
  {
    key: `${PREFIX}*.timeout_ms`,
    schema: () => z.number().int().min(100).max(3_600_000),
    default: 60_000,
    description: "Per-call timeout of the server's tools, ms",
  },
];

/** Define the `plugin.mcp.servers.*` keys. Call once per registry. */
export function registerMcpDefaults(config: Pick<McpConfig, "define">): void {
  for (const definition of KEYS) config.define(definition);
}

/** Names of every configured server (any key stored under it), sorted. */
export function mcpServerNames(config: Pick<McpConfig, "list">): string[] {
  const names = config.list(PREFIX).map((e) => e.key.slice(PREFIX.length).split(".")[0]!);
  return [...new Set(names)].sort();
}

/** Read and check server `name`; throws HomeAgentError (code `mcp_config`) naming the problem. */
export function readMcpServer(config: Pick<McpConfig, "get">, name: string): McpServerConfig {
  if (!SERVER_NAME.test(name)) {
    throw configError(
      name,
      `the name must be 1 to 24 lowercase letters, digits or "-" (it prefixes tool names)`,
    );
  }
  const get = <T>(field: string) => config.get<T>(`${PREFIX}${name}.${field}`);
  const command = get<string>("command").trim();
  const url = get<string>("url").trim();
  const chosen = get<"auto" | McpTransportKind>("transport");
  const transport: McpTransportKind = chosen !== "auto" ? chosen : command ? "stdio" : "http";
  if (transport === "stdio" && !command) throw configError(name, `set ${PREFIX}${name}.command`);
  if (transport !== "stdio") checkUrl(name, url);
  const cwd = get<string>("cwd").trim();
  return {
    name,
    transport,
    command: command || undefined,
    args: get<string[]>("args"),
    env: get<Record<string, string>>("env"),
    cwd: cwd || undefined,
    url: url || undefined,
    headers: get<Record<string, string>>("headers"),
    enabled: get<boolean>("enabled"),
    sseFallback: chosen === "auto" && transport === "http",
    timeoutMs: get<number>("timeout_ms"),
  };
}

function checkUrl(name: string, url: string): void {
  if (!url) throw configError(name, `set ${PREFIX}${name}.url (or .command for a stdio server)`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw configError(name, `${PREFIX}${name}.url "${url}" is not a URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw configError(name, `${PREFIX}${name}.url must be http:// or https://`);
  }
}

function configError(name: string, why: string): HomeAgentError {
  return new HomeAgentError("mcp_config", `MCP server "${name}" is not configured right: ${why}`);
}
