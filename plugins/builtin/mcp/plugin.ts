/**
 * The `mcp` built-in: an MCP client for every server under `plugin.mcp.servers.<name>`, each
 * one's tools offered as `<server>_<tool>`, plus the plugin's own tools: restart a server, list
 * and read resources, list and get prompts. Servers connect in the background, so a slow `npx`
 * never holds up the daemon's start; their tools appear when they are ready.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import {
  type Clock,
  errorMessage,
  type Plugin,
  type PluginSDK,
  type RegisteredTool,
  type ToolDef,
} from "../../../core/mod.ts";
import type { CliLineChannel } from "../cli/server.ts";
import { sdkChat } from "./chat.ts";
import { LineTransport } from "./line_transport.ts";
import { createMcpServer } from "./server.ts";
import { type McpConfig, mcpServerNames, readMcpServer } from "./config.ts";
import {
  type McpConnectionOptions,
  McpServerConnection,
  type McpServerInfo,
} from "./connection.ts";
import { MAX_RESULT_CHARS } from "./tools.ts";
import { argsSchema, errorsAsResults } from "../tool_errors.ts";

/** Options of createMcpPlugin. */
export interface McpPluginOptions {
  config: Pick<McpConfig, "get" | "list">;
  clock: Clock;
  /** HomeAgent's version, sent as the client's. */
  version: string;
  /** The daemon's PATH, passed to stdio servers (their only inherited variable). */
  path?: string;
  trace?: McpConnectionOptions["trace"];
  backoffMs?: readonly number[];
  /** The agent's tools, for HomeAgent's own MCP server (its memory tools are offered). */
  agentTools?: () => RegisteredTool[];
}

/** The mcp plugin: the client's servers for `status`, and HomeAgent's own MCP server. */
export interface McpPlugin extends Plugin {
  servers(): McpServerInfo[];
  /** Resolves when every server's first connection attempt has ended. */
  settled(): Promise<void>;
  /** Start serving one MCP session over `transport` (resolves once connected). Throws before start(). */
  serve(transport: Transport): Promise<void>;
  /** Serve one `homeagent mcp` session over the daemon's socket. */
  serveLines(channel: CliLineChannel): void;
}

/** Create the mcp built-in. */
export function createMcpPlugin(options: McpPluginOptions): McpPlugin {
  const connections = new Map<string, McpServerConnection>();
  let starting: Promise<unknown> = Promise.resolve();
  let started: PluginSDK | undefined;
  const sessions = new Set<Transport>();

  const connect = (sdk: PluginSDK, name: string) => {
    const connection = new McpServerConnection(name, {
      config: () => readMcpServer(options.config, name),
      sdk,
      clock: options.clock,
      logger: sdk.logger,
      version: options.version,
      path: options.path,
      trace: options.trace,
      backoffMs: options.backoffMs,
    });
    connections.set(name, connection);
    return connection;
  };

  return {
    name: "mcp",
    start(sdk) {
      started = sdk;
      const connecting: Promise<void>[] = [];
      for (const name of mcpServerNames(options.config)) {
        let enabled: boolean;
        try {
          enabled = readMcpServer(options.config, name).enabled;
        } catch (error) {
          sdk.logger.error("MCP server not started", { server: name, error: errorMessage(error) });
          continue;
        }
        if (enabled) connecting.push(connect(sdk, name).start());
      }
      starting = Promise.all(connecting);
      const connectionFor = (name: string) => {
        const known = connections.get(name);
        if (known) return known;
        if (!mcpServerNames(options.config).includes(name)) {
          throw new Error(`No MCP server "${name}" is configured (plugin.mcp.servers.${name}.*)`);
        }
        return connect(sdk, name);
      };
      for (const tool of pluginTools(connections, connectionFor)) sdk.registerTool(tool);
    },
    async stop() {
      started = undefined;
      await Promise.all([...sessions].map((t) => t.close().catch(() => {})));
      await starting;
      await Promise.all([...connections.values()].map((c) => c.stop()));
      connections.clear();
    },
    servers: () => [...connections.values()].map((c) => c.info()),
    settled: async () => void await starting,
    async serve(transport) {
      const sdk = started;
      if (!sdk) throw new Error("The mcp plugin is not running");
      const server = await createMcpServer({
        version: options.version,
        clock: options.clock,
        logger: sdk.logger,
        tools: options.agentTools ?? (() => []),
        chat: sdkChat(sdk),
      });
      if (started !== sdk) throw new Error("The mcp plugin stopped"); // while the SDK loaded
      sessions.add(transport);
      server.onclose = () => sessions.delete(transport);
      await server.connect(transport);
    },
    serveLines(channel) {
      void this.serve(new LineTransport(channel)).catch((error) => {
        started?.logger.warn("MCP session failed", { error: errorMessage(error) });
        channel.close();
      });
    },
  };
}

const serverArg = {
  type: "string",
  description: "MCP server name (omit for every server)",
} as const;

/** The plugin's own tools over its connections. */
function pluginTools(
  connections: Map<string, McpServerConnection>,
  connectionFor: (name: string) => McpServerConnection,
): ToolDef[] {
  const pick = (server: unknown) => {
    if (server === undefined) return [...connections.values()];
    const found = connections.get(String(server));
    if (!found) {
      throw new Error(
        `No MCP server "${server}" (configured: ${[...connections.keys()].join(", ") || "none"})`,
      );
    }
    return [found];
  };
  return [
    {
      name: "mcp_restart_server",
      description: "Restart an MCP server (after a crash or a settings change)",
      parameters: argsSchema({ name: { type: "string", description: "MCP server name" } }, [
        "name",
      ]),
      noMemory: true,
      handler: errorsAsResults(async (args) => {
        const info = await connectionFor(String(args.name)).restart();
        return info.state === "ready"
          ? `MCP server "${info.name}" is ready; tools: ${info.tools.join(", ") || "none"}`
          : `MCP server "${info.name}" is ${info.state}: ${info.error ?? ""}`;
      }),
    },
    {
      name: "mcp_resources",
      description: "List the resources MCP servers offer (read one with mcp_read_resource)",
      parameters: argsSchema({ server: serverArg }, []),
      parallelSafe: true,
      noMemory: true,
      handler: errorsAsResults(async (args, signal) => {
        const lines: string[] = [];
        for (const c of pick(args.server)) {
          if (!c.info().resources) continue;
          for (const r of await c.resources(signal)) {
            lines.push(
              `- ${c.name} ${r.uri} ${r.name}${r.description ? `: ${r.description}` : ""}`,
            );
          }
        }
        return lines.join("\n") || "No MCP server offers resources";
      }),
    },
    {
      name: "mcp_read_resource",
      description: "Read one resource of an MCP server by its URI",
      parameters: argsSchema({ server: { type: "string" }, uri: { type: "string" } }, [
        "server",
        "uri",
      ]),
      parallelSafe: true,
      handler: errorsAsResults(async (args, signal) => {
        const client = requireClient(pick(args.server)[0]!);
        const result = await client.readResource({ uri: String(args.uri) }, { signal });
        return resourceText(result);
      }),
    },
    {
      name: "mcp_prompts",
      description: "List the prompts MCP servers offer (get one with mcp_get_prompt)",
      parameters: argsSchema({ server: serverArg }, []),
      parallelSafe: true,
      noMemory: true,
      handler: errorsAsResults(async (args, signal) => {
        const lines: string[] = [];
        for (const c of pick(args.server)) {
          if (!c.info().prompts) continue;
          for (const p of await c.prompts(signal)) {
            const params = (p.arguments ?? []).map((a: { name: string; required?: boolean }) =>
              `${a.name}${a.required ? "" : "?"}`
            );
            lines.push(
              `- ${c.name} ${p.name}(${params.join(", ")})${
                p.description ? `: ${p.description}` : ""
              }`,
            );
          }
        }
        return lines.join("\n") || "No MCP server offers prompts";
      }),
    },
    {
      name: "mcp_get_prompt",
      description: "Get a prompt of an MCP server, filled with its arguments",
      parameters: argsSchema({
        server: { type: "string" },
        name: { type: "string" },
        arguments: { type: "object", additionalProperties: { type: "string" } },
      }, ["server", "name"]),
      parallelSafe: true,
      handler: errorsAsResults(async (args, signal) => {
        const client = requireClient(pick(args.server)[0]!);
        const result = await client.getPrompt({
          name: String(args.name),
          arguments: (args.arguments ?? {}) as Record<string, string>,
        }, { signal });
        return promptText(result);
      }),
    },
  ];
}

function requireClient(connection: McpServerConnection) {
  const client = connection.client;
  if (!client) throw new Error(`MCP server "${connection.name}" is ${connection.info().state}`);
  return client;
}

function resourceText(result: ReadResourceResult): string {
  const parts = result.contents.map((c: { uri: string; mimeType?: string; text?: unknown }) =>
    "text" in c && typeof c.text === "string"
      ? `[${c.uri}${c.mimeType ? ` ${c.mimeType}` : ""}]\n${c.text}`
      : `[${c.uri}${c.mimeType ? ` ${c.mimeType}` : ""}, binary]`
  );
  return parts.join("\n").slice(0, MAX_RESULT_CHARS);
}

function promptText(result: GetPromptResult): string {
  const lines = result.description ? [result.description] : [];
  for (const m of result.messages) {
    const c = m.content;
    lines.push(`${m.role}: ${c.type === "text" ? c.text : `[${c.type}]`}`);
  }
  return lines.join("\n").slice(0, MAX_RESULT_CHARS);
}
