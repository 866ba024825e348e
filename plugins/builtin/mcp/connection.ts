/**
 * One configured MCP server as the client plugin holds it: connect (stdio, Streamable HTTP or
 * the legacy SSE transport), register its tools as `<server>_<tool>`, re-register them on
 * `notifications/tools/list_changed`, and when the connection drops unasked, detach the tools
 * and reconnect with backoff until the crash budget is spent.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, Prompt, Resource, Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  type Clock,
  errorMessage,
  type Logger,
  type PluginSDK,
  type TimerHandle,
} from "../../../core/mod.ts";
import { CrashPolicy } from "../../host/mod.ts";
import type { McpServerConfig } from "./config.ts";
import { DenoStdioTransport } from "./stdio_transport.ts";
import { boundedFetch } from "./_bounded_fetch.ts";
import { type McpSdk, mcpSdk } from "./_sdk.ts";
import { mcpToolDef, toolName } from "./tools.ts";

/** Where a server stands. */
export type McpServerState = "connecting" | "ready" | "restarting" | "failed" | "stopped";

/** What `status` and `mcp_restart_server` report about one server. */
export interface McpServerInfo {
  name: string;
  transport: string;
  state: McpServerState;
  error?: string;
  tools: string[];
  resources: boolean;
  prompts: boolean;
  pid?: number;
}

/** Options of an McpServerConnection. */
export interface McpConnectionOptions {
  /** Read when (re)connecting, so an edited setting applies at the next restart. */
  config: () => McpServerConfig;
  sdk: PluginSDK;
  clock: Clock;
  logger: Logger;
  version: string;
  /** The daemon's PATH for stdio servers. */
  path?: string;
  /** Every JSON-RPC message in each direction (debug, and tests checking the wire). */
  trace?: (server: string, direction: "send" | "receive", message: JSONRPCMessage) => void;
  backoffMs?: readonly number[];
  maxCrashes?: number;
  /** Timeout of connect and list requests, ms; default 30 000. */
  connectTimeoutMs?: number;
}

/** A live (or reconnecting) connection to one configured server. */
export class McpServerConnection {
  readonly name: string;
  #o: McpConnectionOptions;
  #client?: Client;
  #transport?: Transport;
  #state: McpServerState = "stopped";
  #error?: string;
  /** Why an HTTP transport was cut off (a line past MAX_LINE_BYTES), for the error shown. */
  #overflow?: Error;
  #tools = new Map<string, string>(); // registered name → the server's tool name
  #policy: CrashPolicy;
  #retry?: TimerHandle;
  #generation = 0;
  #transportKind = "";

  constructor(name: string, options: McpConnectionOptions) {
    this.name = name;
    this.#o = options;
    this.#policy = new CrashPolicy({
      backoffMs: options.backoffMs ?? [1000, 2000, 5000, 10_000, 30_000],
      maxCrashes: options.maxCrashes ?? 6,
    });
  }

  /** The connected client, while ready. */
  get client(): Client | undefined {
    return this.#state === "ready" ? this.#client : undefined;
  }

  /** Connect and register tools; a failure is recorded and retried with backoff, never thrown. */
  async start(): Promise<void> {
    const generation = ++this.#generation;
    this.#retry?.cancel();
    this.#state = "connecting";
    try {
      await this.#connect(generation);
    } catch (error) {
      if (generation !== this.#generation) return;
      await this.#teardown();
      this.#failed(`Cannot connect: ${errorMessage(error)}`);
    }
  }

  /** Stop for good (plugin stop): tools detached, process ended. */
  async stop(): Promise<void> {
    this.#generation++;
    this.#retry?.cancel();
    this.#state = "stopped";
    await this.#teardown();
  }

  /** A manual restart: forget past crashes, reconnect now. */
  async restart(): Promise<McpServerInfo> {
    await this.stop();
    this.#policy.reset();
    this.#error = undefined;
    await this.start();
    return this.info();
  }

  /** State, tools and capabilities. */
  info(): McpServerInfo {
    const caps = this.client?.getServerCapabilities();
    const pid = this.#transport instanceof DenoStdioTransport ? this.#transport.pid : undefined;
    return {
      name: this.name,
      transport: this.#transportKind,
      state: this.#state,
      ...(this.#error ? { error: this.#error } : {}),
      tools: [...this.#tools.keys()],
      resources: caps?.resources !== undefined,
      prompts: caps?.prompts !== undefined,
      ...(pid !== undefined ? { pid } : {}),
    };
  }

  /** Every resource the server lists (all pages, at most 1000). */
  resources(signal?: AbortSignal): Promise<Resource[]> {
    const client = this.#ready();
    return paged("resources", async (cursor) => {
      const page = await client.listResources(cursor ? { cursor } : undefined, { signal });
      return { items: page.resources, next: page.nextCursor };
    });
  }

  /** Every prompt the server lists (all pages, at most 1000). */
  prompts(signal?: AbortSignal): Promise<Prompt[]> {
    const client = this.#ready();
    return paged("prompts", async (cursor) => {
      const page = await client.listPrompts(cursor ? { cursor } : undefined, { signal });
      return { items: page.prompts, next: page.nextCursor };
    });
  }

  #ready(): Client {
    const client = this.client;
    if (!client) {
      throw new Error(
        `MCP server "${this.name}" is ${this.#state}${this.#error ? `: ${this.#error}` : ""}`,
      );
    }
    return client;
  }

  async #connect(generation: number): Promise<void> {
    this.#overflow = undefined;
    const config = this.#o.config();
    const timeout = this.#o.connectTimeoutMs ?? 30_000;
    const attempts = config.sseFallback ? ["http", "sse"] : [config.transport];
    let lastError: unknown;
    const sdk = await mcpSdk();
    for (const kind of attempts) {
      const client = new sdk.Client({ name: "homeagent", version: this.#o.version }, {
        capabilities: {},
      });
      const transport = this.#makeTransport(config, kind, sdk);
      try {
        this.#client = client;
        this.#transport = transport;
        this.#transportKind = kind;
        await client.connect(transport, { timeout });
        break;
      } catch (caught) {
        const error = this.#overflow ?? caught;
        lastError = error;
        await client.close().catch(() => {});
        this.#client = undefined;
        if (kind === "sse" || !isHttpRefusal(error)) throw error;
      }
    }
    if (!this.#client) throw lastError;
    if (generation !== this.#generation) return;
    // Set after connect: a failed first attempt must not count as a crash.
    this.#client.onclose = () => this.#dropped(generation);
    this.#client.setNotificationHandler(sdk.types.ToolListChangedNotificationSchema, () => {
      void this.#refreshTools(generation).catch((error) =>
        this.#o.logger.warn("Cannot refresh MCP tools", {
          server: this.name,
          error: errorMessage(error),
        })
      );
    });
    await this.#refreshTools(generation);
    if (generation !== this.#generation) return;
    this.#state = "ready";
    this.#error = undefined;
    this.#o.logger.info("MCP server connected", {
      server: this.name,
      transport: this.#transportKind,
      tools: this.#tools.size,
    });
  }

  #makeTransport(config: McpServerConfig, kind: string, sdk: McpSdk): Transport {
    const headers = config.headers;
    const requestInit = { headers };
    // Past the bound the SDK would only log the stream's error and wait out the request's
    // timeout: close the connection at once, and say why.
    const fetch = boundedFetch(this.name, MAX_LINE_BYTES, (error) => {
      this.#overflow = error;
      void this.#transport?.close();
    });
    if (kind === "http") {
      return new sdk.StreamableHTTPClientTransport(new URL(config.url!), { requestInit, fetch });
    }
    if (kind === "sse") {
      return new sdk.SSEClientTransport(new URL(config.url!), { requestInit, fetch });
    }
    const trace = this.#o.trace;
    return new DenoStdioTransport({
      command: config.command!,
      args: config.args,
      env: config.env,
      cwd: config.cwd,
      path: this.#o.path,
      onStderr: (line) => this.#o.logger.debug("MCP server stderr", { server: this.name, line }),
      trace: trace ? (direction, message) => trace(this.name, direction, message) : undefined,
    });
  }

  /** List every tool (all pages) and swap the registrations to match. */
  async #refreshTools(generation: number): Promise<void> {
    const client = this.#client!;
    const config = this.#o.config();
    const tools: Tool[] = client.getServerCapabilities()?.tools
      ? await paged("tools", async (cursor) => {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        return { items: page.tools, next: page.nextCursor };
      })
      : [];
    if (generation !== this.#generation) return;
    this.#detachTools();
    for (const tool of tools) this.#register(tool, config.timeoutMs);
  }

  #register(tool: Tool, timeoutMs: number): void {
    const name = toolName(this.name, tool.name);
    if (this.#tools.has(name)) {
      this.#o.logger.warn("MCP tool name collides after shortening; skipped", {
        server: this.name,
        tool: tool.name,
      });
      return;
    }
    try {
      this.#o.sdk.registerTool(
        mcpToolDef(this.name, tool, { name, timeoutMs, client: () => this.#ready() }),
      );
      this.#tools.set(name, tool.name);
    } catch (error) {
      this.#o.logger.warn("MCP tool not registered", {
        server: this.name,
        tool: tool.name,
        error: errorMessage(error),
      });
    }
  }

  #detachTools(): void {
    for (const name of this.#tools.keys()) this.#o.sdk.unregisterTool(name);
    this.#tools.clear();
  }

  /** The connection closed unasked: tools go now, a reconnect follows the backoff. */
  #dropped(generation: number): void {
    if (generation !== this.#generation || this.#state === "stopped") return;
    this.#generation++;
    this.#detachTools();
    this.#client = undefined;
    this.#transport = undefined;
    this.#failed(
      this.#overflow?.message ?? "The connection closed (the server exited or went away)",
    );
  }

  #failed(reason: string): void {
    this.#error = reason;
    const decision = this.#policy.crashed(this.#o.clock.monotonic());
    if (!decision.restart) {
      this.#state = "failed";
      this.#error = `Gave up after ${decision.crashes} failures in 5 minutes (last: ${reason}); ` +
        `fix it and call mcp_restart_server`;
      this.#o.logger.error("MCP server failed; giving up", { server: this.name, reason });
      return;
    }
    this.#state = "restarting";
    this.#o.logger.warn("MCP server down; reconnecting", {
      server: this.name,
      reason,
      delayMs: decision.delayMs,
    });
    this.#retry = this.#o.clock.setTimer(decision.delayMs, () => {
      this.#retry = undefined;
      void this.start();
    });
  }

  async #teardown(): Promise<void> {
    this.#detachTools();
    const client = this.#client;
    this.#client = undefined;
    this.#transport = undefined;
    await client?.close().catch((error: unknown) =>
      this.#o.logger.warn("MCP server did not close cleanly", {
        server: this.name,
        error: errorMessage(error),
      })
    );
  }
}

/** Every item of a paginated list, following cursors up to `max` items. */
async function paged<T>(
  what: string,
  page: (cursor?: string) => Promise<{ items: T[]; next?: string }>,
  max = 1000,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  // Pages are counted as well as items: a server may answer empty pages with a fresh cursor
  // for ever, which kept the listing (and the plugin's start) going without end.
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const { items, next } = await page(cursor);
    all.push(...items);
    cursor = next;
    if (!cursor || all.length >= max) return all.slice(0, max);
  }
  throw new Error(
    `The server sent more than ${MAX_PAGES} pages of ${what} without an end (a broken or hostile server); fix or remove it`,
  );
}

/** Longest line from an HTTP server, as from a stdio one (DenoStdioTransport's default). */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Most pages of one listing. */
const MAX_PAGES = 100;

/** A Streamable HTTP POST refused with a 4xx: the spec's cue to try the legacy SSE transport. */
function isHttpRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "number" && code >= 400 && code < 500;
}
