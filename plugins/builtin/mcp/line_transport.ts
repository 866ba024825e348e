/**
 * An MCP transport over a line channel (the daemon's socket after an mcp frame): one JSON-RPC
 * message per line each way, the framing of MCP's stdio transport, so `homeagent mcp` relays
 * stdin and stdout to the socket unchanged.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../../../core/mod.ts";
import type { CliLineChannel } from "../cli/server.ts";

/** The server side of one `homeagent mcp` session. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #channel: CliLineChannel;
  #closed = false;

  constructor(channel: CliLineChannel) {
    this.#channel = channel;
  }

  start(): Promise<void> {
    this.#channel.onLine = (line) => {
      let message: JSONRPCMessage;
      try {
        message = JSONRPCMessageSchema.parse(JSON.parse(line));
      } catch (error) {
        this.onerror?.(new Error(`Not a JSON-RPC message: ${errorMessage(error)}`));
        return;
      }
      this.onmessage?.(message);
    };
    this.#channel.onClose = () => this.#finish();
    return Promise.resolve();
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
