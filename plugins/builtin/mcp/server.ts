/**
 * HomeAgent as an MCP server: the agent's own memory tools (the same definitions the model
 * uses: recall and commit, documents, knowledge, persons) and `chat`, which sends a message to
 * the agent and answers with its reply. While a chat turn runs, each step is reported as a
 * progress notification when the client asked for progress; a cancelled request stops that
 * turn (and no other). One McpServer serves one session; the transport is the caller's
 * (stdio through the daemon's socket, or Streamable HTTP on the web server).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolRequest,
  CallToolResult,
  ServerNotification,
  ServerRequest,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type Clock,
  executeTool,
  type Logger,
  parseToolArguments,
  type RegisteredTool,
} from "../../../core/mod.ts";
import type { McpChat } from "./chat.ts";
import { mcpSdk } from "./_sdk.ts";

/** The agent's tools offered over MCP, and whether each only reads. */
export const EXPOSED_TOOLS: Readonly<Record<string, { readOnly: boolean }>> = {
  "memory_recall": { readOnly: true },
  "memory_commit": { readOnly: false },
  "doc_query": { readOnly: true },
  "knowledge_search": { readOnly: true },
  "knowledge_list": { readOnly: true },
  "knowledge_create": { readOnly: false },
  "person_query": { readOnly: true },
  "person_network": { readOnly: true },
};

/** Options of createMcpServer. */
export interface McpServerOptions {
  version: string;
  clock: Clock;
  logger: Logger;
  /** The agent's tools; those named in EXPOSED_TOOLS are offered. */
  tools: () => RegisteredTool[];
  chat: McpChat;
  /** Timeout of one memory tool call, ms; default 60 000 (chat has none: cancel it instead). */
  timeoutMs?: number;
}

const CHAT_TOOL: Tool = {
  name: "chat",
  title: "Talk to the agent",
  description: "Send a message to the HomeAgent agent and get its reply (it may use its tools)",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string", minLength: 1, maxLength: 100_000 } },
    required: ["text"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
};

/** A new MCP server (one per session) over the agent; the first one loads the SDK. */
export async function createMcpServer(options: McpServerOptions): Promise<Server> {
  const { Server, types: { CallToolRequestSchema, ListToolsRequestSchema } } = await mcpSdk();
  const server = new Server(
    { name: "homeagent", title: "HomeAgent", version: options.version },
    {
      capabilities: { tools: {} },
      instructions: "HomeAgent: a personal agent with long-term memory. Use chat to talk to " +
        "it; memory_recall, doc_query, knowledge_search and person_query read its memory.",
    },
  );
  const exposed = () => options.tools().filter((t) => Object.hasOwn(EXPOSED_TOOLS, t.name));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...exposed().map(describe), CHAT_TOOL],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (
    request: CallToolRequest,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ) => {
    const { name, arguments: args = {} } = request.params;
    if (name === "chat") {
      const token = request.params._meta?.progressToken;
      let progress = 0;
      return await runChat(options.chat, args, {
        signal: extra.signal,
        onProgress: token === undefined ? undefined : (message) =>
          void extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: ++progress, message },
          }).catch(() => {}),
      });
    }
    const tool = exposed().find((t) => t.name === name);
    if (!tool) return failure(`Unknown tool "${name}"`);
    return await runTool(tool, args, extra, options);
  });
  return server;
}

function describe(tool: RegisteredTool): Tool {
  const readOnly = EXPOSED_TOOLS[tool.name]!.readOnly;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as Tool["inputSchema"],
    annotations: {
      readOnlyHint: readOnly,
      ...(readOnly ? {} : { destructiveHint: false }),
      openWorldHint: false,
    },
  };
}

async function runTool(
  tool: RegisteredTool,
  args: Record<string, unknown>,
  extra: { signal: AbortSignal; requestId: string | number; sessionId?: string },
  options: McpServerOptions,
): Promise<CallToolResult> {
  const call = { id: `mcp-${extra.requestId}`, name: tool.name, arguments: JSON.stringify(args) };
  const parsed = parseToolArguments(tool, call);
  if (!parsed.ok) return failure(parsed.error);
  const result = await executeTool(tool, parsed.args, call, {
    clock: options.clock,
    logger: options.logger,
    turnId: `mcp-${extra.sessionId ?? "stdio"}`,
    signal: extra.signal,
    defaultTimeoutMs: options.timeoutMs ?? 60_000,
  });
  return { content: [{ type: "text", text: result.content }], isError: result.isError === true };
}

async function runChat(
  chat: McpChat,
  args: Record<string, unknown>,
  options: { signal: AbortSignal; onProgress?: (message: string) => void },
): Promise<CallToolResult> {
  const text = args.text;
  if (typeof text !== "string" || text.trim() === "" || text.length > 100_000) {
    return failure(`"text" must be a non-empty string of at most 100000 characters`);
  }
  const reply = await chat.ask(text, options);
  if (reply.status === "ok" || reply.status === "short_circuit") {
    return { content: [{ type: "text", text: reply.text }] };
  }
  return failure(`The turn ended "${reply.status}"${reply.text ? `: ${reply.text}` : ""}`);
}

function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
