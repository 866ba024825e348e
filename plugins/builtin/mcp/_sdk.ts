/**
 * The MCP SDK's runtime parts, loaded on first use: they hold ~12 MB once imported (mostly the
 * zod schemas of types.js), and a daemon with no MCP server configured and no MCP session open
 * never needs them. Type imports of the SDK stay static: they cost nothing at run time.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

/** What HomeAgent uses of the SDK at run time. */
export interface McpSdk {
  Client: typeof Client;
  SSEClientTransport: typeof SSEClientTransport;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  Server: typeof Server;
  WebStandardStreamableHTTPServerTransport: typeof WebStandardStreamableHTTPServerTransport;
  types: typeof import("@modelcontextprotocol/sdk/types.js");
}

let loading: Promise<McpSdk> | undefined;

/** The SDK, imported once per process. */
export function mcpSdk(): Promise<McpSdk> {
  loading ??= (async () => {
    const [client, sse, http, server, web, types] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js"),
      import("@modelcontextprotocol/sdk/client/sse.js"),
      import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      import("@modelcontextprotocol/sdk/server/index.js"),
      import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
      import("@modelcontextprotocol/sdk/types.js"),
    ]);
    return {
      Client: client.Client,
      SSEClientTransport: sse.SSEClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      Server: server.Server,
      WebStandardStreamableHTTPServerTransport: web.WebStandardStreamableHTTPServerTransport,
      types,
    };
  })();
  return loading;
}
