/**
 * An MCP transport over a line channel (the daemon's socket after an mcp frame): one JSON-RPC
 * message per line each way, the framing of MCP's stdio transport, so `homeagent mcp` relays
 * stdin and stdout to the socket unchanged.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../../../core/mod.ts";
import type { CliLineChannel } from "../cli/server.ts";
import { type McpSdk, mcpSdk } from "./_sdk.ts";

const MAX_EARLY_LINES = 64;

/** The server side of one `homeagent mcp` session. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #channel: CliLineChannel;
  #closed = false;
  #schema?: McpSdk["types"]["JSONRPCMessageSchema"];
  /** Lines that came before start() (the SDK loads first); the client waits after a few. */
  #early: string[] = [];
  #endedEarly = false;

  constructor(channel: CliLineChannel) {
    this.#channel = channel;
    channel.onLine = (line) => {
      if (this.#early.length < MAX_EARLY_LINES) this.#early.push(line);
    };
    channel.onClose = () => this.#endedEarly = true;
  }

  async start(): Promise<void> {
    this.#schema = (await mcpSdk()).types.JSONRPCMessageSchema;
    this.#channel.onLine = (line) => this.#receive(line);
    this.#channel.onClose = () => this.#finish();
    for (const line of this.#early.splice(0)) this.#receive(line);
    if (this.#endedEarly) this.#finish();
  }

  #receive(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = this.#schema!.parse(JSON.parse(line));
    } catch (error) {
      this.onerror?.(new Error(`Not a JSON-RPC message: ${errorMessage(error)}`));
      return;
    }
    this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("Not connected"));
    this.#channel.send(JSON.stringify(message));
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#channel.close();
    this.#finish();
    return Promise.resolve();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
