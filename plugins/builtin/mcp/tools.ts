/**
 * An MCP server's tool as a HomeAgent tool: named `<server>_<tool>`, described with the prefix
 * `[MCP/<server>]`, its input schema handed to the tool registry (which validates every call's
 * arguments against it before the handler runs), and its result flattened to text the model
 * reads. The turn's signal is the request's signal: a stopped turn aborts the request, and the
 * SDK sends `notifications/cancelled` for it.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema, ToolDef, ToolResult } from "../../../core/mod.ts";

/** Longest text a tool result hands the model, characters. */
export const MAX_RESULT_CHARS = 100_000;

/** Longest description kept from the server, characters. */
const MAX_DESCRIPTION = 400;

/** `<server>_<tool>` with characters outside [A-Za-z0-9_-] turned to "_", at most 64 long. */
export function toolName(server: string, tool: string): string {
  return `${server}_${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, 64);
}

/** Options of mcpToolDef. */
export interface McpToolOptions {
  /** The registered name (toolName of the server and tool). */
  name: string;
  timeoutMs: number;
  /** The connected client; throws when the server is not ready. */
  client: () => Client;
}

/** The ToolDef that calls `tool` on `server`. */
export function mcpToolDef(server: string, tool: Tool, options: McpToolOptions): ToolDef {
  const description = (tool.description ?? tool.title ?? tool.name).replace(/\s+/g, " ").trim();
  return {
    name: options.name,
    description: `[MCP/${server}] ${clip(description, MAX_DESCRIPTION)}`,
    parameters: inputSchema(tool),
    parallelSafe: tool.annotations?.readOnlyHint === true,
    // The kernel's timer backs up the SDK's own, which fires first and cancels on the wire.
    timeoutMs: options.timeoutMs + 1000,
    handler: async (args, context) => {
      const result = await options.client().callTool(
        { name: tool.name, arguments: args },
        undefined,
        { signal: context.signal, timeout: options.timeoutMs },
      );
      return toolResult(result as CallToolResult);
    },
  };
}

function inputSchema(tool: Tool): JsonSchema {
  const { $schema: _ignored, ...schema } = tool.inputSchema as Record<string, unknown>;
  return { ...schema, type: "object" } as JsonSchema;
}

/** A CallToolResult as text: text parts verbatim, other parts named, structured content as JSON. */
export function toolResult(result: CallToolResult): ToolResult {
  const parts: string[] = [];
  for (const item of result.content ?? []) {
    switch (item.type) {
      case "text":
        parts.push(item.text);
        break;
      case "image":
      case "audio":
        parts.push(
          `[${item.type} ${item.mimeType}, ${Math.floor(item.data.length * 3 / 4)} bytes]`,
        );
        break;
      case "resource": {
        const r = item.resource;
        parts.push("text" in r ? `[resource ${r.uri}]\n${r.text}` : `[resource ${r.uri}, binary]`);
        break;
      }
      case "resource_link":
        parts.push(`[resource link ${item.uri}${item.name ? ` "${item.name}"` : ""}]`);
        break;
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  const content = clip(parts.join("\n"), MAX_RESULT_CHARS);
  return result.isError ? { content: content || "The tool failed", isError: true } : { content };
}

function clip(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}
