/**
 * One plugin child process: spawn, the JSON-RPC connection over its stdin/stdout, stderr
 * re-logged with the plugin's name, one wait loop on `child.status` (exit is seen even when a
 * grandchild keeps stdout open), and the stop sequence stdin close → SIGTERM → SIGKILL.
 */
import { type Clock, errorMessage, type Logger, PluginError, sleep } from "../../core/mod.ts";
import { JsonRpcPeer, type RequestHandler, type RequestOptions } from "../sdk/rpc.ts";
import { ErrorCode, RpcError } from "../sdk/protocol.ts";
import type { PluginCommand } from "./permissions.ts";

/** How a child ended. */
export interface ExitInfo {
  code: number;
  signal: string | null;
  /** True when the host asked it to stop. */
  expected: boolean;
}

/** Options of a PluginProcess. */
export interface PluginProcessOptions {
  name: string;
  command: PluginCommand;
  clock: Clock;
  logger: Logger;
  onRequest: RequestHandler;
  onNotification?: (method: string, params: unknown) => void;
  /** Called once when the child exits, for whatever reason. */
  onExit?: (info: ExitInfo) => void;
  maxFrameBytes?: number;
  /** Grace periods of the stop sequence (each step), ms; default 2000. */
  graceMs?: number;
}

/** A running plugin child. */
export class PluginProcess {
  readonly name: string;
  #options: PluginProcessOptions;
  #child: Deno.ChildProcess;
  #peer: JsonRpcPeer;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #stopping = false;
  #exited: Promise<ExitInfo>;
  #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  #pumps: Promise<void>[] = [];

  /** Spawn the child; throws PluginError when the command cannot start. */
  constructor(options: PluginProcessOptions) {
    this.name = options.name;
    this.#options = options;
    const { command } = options;
    try {
      this.#child = new Deno.Command(command.command, {
        args: command.args,
        cwd: command.cwd,
        env: command.env,
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      throw new PluginError(
        options.name,
        `Cannot start plugin "${options.name}": ${errorMessage(error)}`,
        { cause: error },
      );
    }
    this.#writer = this.#child.stdin.getWriter();
    this.#peer = new JsonRpcPeer({
      write: (bytes) => this.#write(bytes),
      onRequest: options.onRequest,
      onNotification: options.onNotification,
      onProtocolError: (message, detail) => options.logger.warn(message, detail),
      maxFrameBytes: options.maxFrameBytes,
      setTimer: (ms, fn) => {
        const timer = options.clock.setTimer(ms, fn);
        return () => timer.cancel();
      },
      now: () => options.clock.monotonic(),
    });
    this.#pumps.push(this.#pump(this.#child.stdout, (chunk) => this.#peer.receive(chunk)));
    this.#pumps.push(this.#pumpStderr());
    this.#exited = this.#waitLoop();
  }

  /** The child's pid. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Resolves when the child has exited. */
  get exited(): Promise<ExitInfo> {
    return this.#exited;
  }

  /** Send a request to the plugin. */
  request(method: string, params?: unknown, options?: RequestOptions): Promise<unknown> {
    return this.#peer.request(method, params, options);
  }

  /** Send a notification to the plugin. */
  notify(method: string, params?: unknown): void {
    this.#peer.notify(method, params);
  }

  /** Kill at once (tests, a plugin that failed its handshake). */
  kill(): void {
    this.#stopping = true;
    this.#signal("SIGKILL");
  }

  /**
   * Orderly stop: `plugin.stop` (bounded), close stdin, wait; SIGTERM, wait; SIGKILL. Resolves
   * when the child has exited.
   */
  async stop(): Promise<ExitInfo> {
    if (!this.#stopping) {
      this.#stopping = true;
      const grace = this.#options.graceMs ?? 2000;
      await this.request("plugin.stop", {}, { timeoutMs: grace }).catch(() => {});
      await this.#writer.close().catch(() => {});
      for (const signal of ["SIGTERM", "SIGKILL"] as const) {
        if (await this.#exitedWithin(grace)) break;
        this.#options.logger.warn("Plugin did not exit; sending signal", { signal });
        this.#signal(signal);
      }
    }
    return await this.#exited;
  }

  async #exitedWithin(ms: number): Promise<boolean> {
    const timeout = new AbortController();
    const outcome = await Promise.race([
      this.#exited.then(() => true),
      sleep(this.#options.clock, ms, timeout.signal).then(() => false, () => true),
    ]);
    timeout.abort();
    return outcome;
  }

  #signal(signal: Deno.Signal): void {
    try {
      this.#child.kill(signal);
    } catch {
      // already exited
    }
  }

  #write(bytes: Uint8Array): void {
    // A write to a dead child rejects with BrokenPipe; the wait loop reports the exit.
    this.#writer.write(bytes).catch(() => {});
  }

  async #waitLoop(): Promise<ExitInfo> {
    const status = await this.#child.status;
    const info = { code: status.code, signal: status.signal, expected: this.#stopping };
    this.#peer.close(
      new RpcError(ErrorCode.internalError, `Plugin "${this.name}" exited (code ${status.code})`),
    );
    // A grandchild may still hold stdout/stderr open: stop reading them ourselves.
    for (const reader of this.#readers) reader.cancel().catch(() => {});
    await this.#writer.close().catch(() => {});
    await Promise.allSettled(this.#pumps);
    this.#options.onExit?.(info);
    return info;
  }

  async #pump(stream: ReadableStream<Uint8Array>, onChunk: (chunk: Uint8Array) => void) {
    const reader = stream.getReader();
    this.#readers.push(reader);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        onChunk(value);
      }
    } catch {
      // cancelled after exit
    } finally {
      reader.releaseLock();
    }
  }

  #pumpStderr(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    const logger = this.#options.logger;
    return this.#pump(this.#child.stderr, (chunk) => {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf("\n")) >= 0) {
        relog(logger, buffer.slice(0, cut));
        buffer = buffer.slice(cut + 1);
      }
      if (buffer.length > 64 * 1024) {
        relog(logger, buffer);
        buffer = "";
      }
    }).finally(() => {
      if (buffer.trim() !== "") relog(logger, buffer);
    });
  }
}

const LEVELS = new Set(["debug", "info", "warn", "error"]);

/** Re-log one stderr line: a JSON `{level, msg, ...}` line keeps its level and fields. */
function relog(logger: Logger, line: string): void {
  if (line.trim() === "") return;
  try {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (typeof parsed.msg === "string") {
      const { level, msg, ...fields } = parsed;
      const lvl = typeof level === "string" && LEVELS.has(level) ? level : "info";
      logger[lvl as "info"](msg, { ...fields, stream: "stderr" });
      return;
    }
  } catch {
    // plain text
  }
  logger.info(line.slice(0, 4000), { stream: "stderr" });
}
