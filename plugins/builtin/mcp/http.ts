/**
 * HomeAgent's MCP server over Streamable HTTP (`/mcp` on the web server): one SDK transport
 * and server per session, found by the `Mcp-Session-Id` header. Sessions are bounded: at most
 * `maxSessions` (the least recently used is closed to make room) and none idle past `idleMs`
 * (checked on each request, so no timer runs). Auth and the Origin check are the web app's.
 */
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Clock } from "../../../core/mod.ts";
import { mcpSdk } from "./_sdk.ts";

/** Options of McpHttpSessions. */
export interface McpHttpOptions {
  /** Start serving a session over the transport (the mcp plugin's serve). */
  serve(transport: Transport): Promise<void>;
  clock: Clock;
  /** Default 32. */
  maxSessions?: number;
  /** Default 30 minutes. */
  idleMs?: number;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  usedAt: number;
}

/** The `/mcp` endpoint's sessions. */
export class McpHttpSessions {
  #options: McpHttpOptions;
  #sessions = new Map<string, Session>();

  constructor(options: McpHttpOptions) {
    this.#options = options;
  }

  /** Sessions open now. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Answer one request to `/mcp`. */
  async handle(request: Request): Promise<Response> {
    const now = this.#options.clock.monotonic();
    await this.#expire(now);
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const session = this.#sessions.get(id);
      if (!session) return rpcError(404, -32001, "Session not found (it ended or expired)");
      session.usedAt = now;
      return await session.transport.handleRequest(request);
    }
    if (request.method !== "POST") {
      return rpcError(400, -32000, "Mcp-Session-Id header is required");
    }
    return await this.#open(request, now);
  }

  /** A POST without a session: the SDK answers an initialize with a new session, else 400. */
  async #open(request: Request, now: number): Promise<Response> {
    await this.#makeRoom();
    const { WebStandardStreamableHTTPServerTransport } = await mcpSdk();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id: string) => void this.#sessions.set(id, { transport, usedAt: now }),
      onsessionclosed: (id: string) => void this.#sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#sessions.delete(transport.sessionId);
    };
    await this.#options.serve(transport);
    const response = await transport.handleRequest(request);
    if (transport.sessionId === undefined) await transport.close();
    return response;
  }

  async #expire(now: number): Promise<void> {
    const idle = this.#options.idleMs ?? 30 * 60_000;
    for (const [id, session] of [...this.#sessions]) {
      if (now - session.usedAt > idle) await this.#end(id, session);
    }
  }

  async #makeRoom(): Promise<void> {
    const max = this.#options.maxSessions ?? 32;
    const byAge = [...this.#sessions].sort(([, a], [, b]) => a.usedAt - b.usedAt);
    while (byAge.length >= max) {
      const [id, session] = byAge.shift()!;
      await this.#end(id, session);
    }
  }

  async #end(id: string, session: Session): Promise<void> {
    this.#sessions.delete(id);
    await session.transport.close().catch(() => {});
  }

  /** Close every session (shutdown). */
  async close(): Promise<void> {
    for (const [id, session] of [...this.#sessions]) await this.#end(id, session);
  }
}

function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
