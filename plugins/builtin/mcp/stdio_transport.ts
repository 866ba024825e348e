/**
 * The stdio transport of the MCP client on Deno.Command. The SDK's own StdioClientTransport
 * (node child_process) always passes HOME, USER, SHELL and TERM on; a server here gets only the
 * environment its settings give, plus PATH so that `npx`, `node` or `uvx` are found. Framing is
 * the SDK's (one JSON-RPC message per line); a line past `maxLineBytes` ends the connection.
 * Shutdown follows the MCP spec: close stdin, wait, SIGTERM, wait, SIGKILL.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, type Logger } from "../../../core/mod.ts";
import { readLines } from "../cli/protocol.ts";
import { type McpSdk, mcpSdk } from "./_sdk.ts";

/** Options of a DenoStdioTransport. */
export interface StdioTransportOptions {
  command: string;
  args: string[];
  /** The server's environment, besides PATH (taken from `path` when it does not set one). */
  env: Record<string, string>;
  /** The daemon's PATH, passed on unless `env` sets its own. */
  path?: string;
  cwd?: string;
  /** The server's stderr, one line at a time (the plugin re-logs it under the server's name). */
  onStderr?: (line: string) => void;
  /** Every message in each direction (debug tracing, and tests that check the wire). */
  trace?: (direction: "send" | "receive", message: JSONRPCMessage) => void;
  /** Longest accepted line from the server, bytes; default 16 MiB. */
  maxLineBytes?: number;
  /** Wait after closing stdin, then after SIGTERM, ms; default 2000. */
  graceMs?: number;
  logger?: Logger;
}

const encoder = new TextEncoder();

/** An MCP stdio connection to one child process. */
export class DenoStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #options: StdioTransportOptions;
  #child?: Deno.ChildProcess;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #writes: Promise<void> = Promise.resolve();
  #reading?: Promise<void>;
  #closed = false;
  #schema?: McpSdk["types"]["JSONRPCMessageSchema"];

  constructor(options: StdioTransportOptions) {
    this.#options = options;
  }

  /** The child's pid while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Spawn the server. Rejects when the program cannot be started (not found, not executable). */
  async start(): Promise<void> {
    if (this.#child) throw new Error("DenoStdioTransport already started");
    this.#schema = (await mcpSdk()).types.JSONRPCMessageSchema;
    if (this.#child) throw new Error("DenoStdioTransport already started");
    const o = this.#options;
    const env = { ...o.env };
    if (env.PATH === undefined && o.path !== undefined) env.PATH = o.path;
    this.#child = new Deno.Command(o.command, {
      args: o.args,
      cwd: o.cwd,
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reading = Promise.all([this.#readStdout(this.#child), this.#readStderr(this.#child)])
      .then(() => this.#child!.status).then(() => this.#finish());
  }

  async #readStdout(child: Deno.ChildProcess): Promise<void> {
    const max = this.#options.maxLineBytes ?? 16 * 1024 * 1024;
    try {
      for await (const line of readLines(child.stdout, max)) {
        let message: JSONRPCMessage;
        try {
          message = this.#schema!.parse(JSON.parse(line));
        } catch (error) {
          this.onerror?.(
            new Error(`Not a JSON-RPC message from the server: ${errorMessage(error)}`),
          );
          continue;
        }
        this.#options.trace?.("receive", message);
        this.onmessage?.(message);
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      this.#kill("SIGKILL");
    }
  }

  /** stderr is text for the log: lines past 64 KiB are cut, never fatal, and it is always drained. */
  async #readStderr(child: Deno.ChildProcess): Promise<void> {
    let buffer = "";
    const emit = (line: string) => {
      if (line.trim() !== "") this.#options.onStderr?.(line.trimEnd());
    };
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      lines.forEach(emit);
      if (buffer.length > 64 * 1024) buffer = buffer.slice(0, 64 * 1024);
    }
    emit(buffer);
  }

  /** Write one message; rejects when the server has gone. */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed || !this.#writer) return Promise.reject(new Error("Not connected"));
    this.#options.trace?.("send", message);
    const bytes = encoder.encode(JSON.stringify(message) + "\n");
    const writer = this.#writer;
    const write = this.#writes.then(() => writer.write(bytes));
    this.#writes = write.catch(() => {});
    return write;
  }

  /** Stop the server: stdin closed, then SIGTERM, then SIGKILL, each after the grace time. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#closed) return await this.#reading;
    this.#closed = true;
    const grace = this.#options.graceMs ?? 2000;
    await this.#writes;
    await this.#writer?.close().catch(() => {});
    if (!await exited(child, grace)) {
      this.#kill("SIGTERM");
      if (!await exited(child, grace)) this.#kill("SIGKILL");
    }
    await this.#reading;
  }

  #kill(signal: Deno.Signal): void {
    try {
      this.#child?.kill(signal);
    } catch {
      // already exited
    }
  }

  #finish(): void {
    this.#closed = true;
    this.#writer?.releaseLock();
    this.onclose?.();
  }
}

/** Resolve true when `child` exits within `ms`. */
async function exited(child: Deno.ChildProcess, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([child.status.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
