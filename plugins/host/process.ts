/**
 * One plugin child process: spawn, the JSON-RPC connection over its stdin/stdout, stderr
 * re-logged with the plugin's name, one wait loop on `child.status` (exit is seen even when a
 * grandchild keeps stdout open), and the stop sequence stdin close → SIGTERM → SIGKILL.
 *
 * Every channel is bounded (ChannelLimits): the stdin queue, requests in flight both ways, the
 * frame size, and the logs of stderr and of protocol errors. A plugin that stops reading or
 * floods the kernel with bad frames is disconnected: killed, and reported as a crash with the
 * reason, so the registry restarts it on its schedule.
 */
import { type Clock, errorMessage, type Logger, PluginError, sleep } from "../../core/mod.ts";
import { JsonRpcPeer, type RequestHandler, type RequestOptions } from "../sdk/rpc.ts";
import { ErrorCode, RpcError } from "../sdk/protocol.ts";
import { type ChannelLimits, channelLimits, formatCount, LogBudget } from "./limits.ts";
import type { PluginCommand } from "./permissions.ts";
import { StderrRelay } from "./stderr.ts";
import { StdinQueue } from "./stdin_queue.ts";

/** How a child ended. */
export interface ExitInfo {
  code: number;
  signal: string | null;
  /** True when the host asked it to stop. */
  expected: boolean;
  /** Why the host disconnected it (a broken limit), when it did. */
  disconnected?: string;
}

/** How long the pipes may still be drained after the child exited, ms. */
const DRAIN_MS = 250;

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
  /** Bounds of its channels; DEFAULT_CHANNEL_LIMITS where absent. */
  limits?: Partial<ChannelLimits>;
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
  #queue: StdinQueue;
  #limits: ChannelLimits;
  #stderr: StderrRelay;
  #stderrBudget: LogBudget;
  #errorBudget: LogBudget;
  #errors = { since: -Infinity, count: 0 };
  #stopping = false;
  #disconnected: string | undefined;
  #exited: Promise<ExitInfo>;
  #readers: ReadableStreamBYOBReader[] = [];
  #pumps: Promise<void>[] = [];

  /** Spawn the child; throws PluginError when the command cannot start. */
  constructor(options: PluginProcessOptions) {
    this.name = options.name;
    this.#options = options;
    this.#child = spawn(options.name, options.command);
    const limits = this.#limits = channelLimits(options.limits);
    const { clock, logger } = options;
    this.#writer = this.#child.stdin.getWriter();
    this.#queue = new StdinQueue({
      writer: this.#writer,
      clock,
      maxBytes: limits.maxQueueBytes,
      maxFrames: limits.maxQueueFrames,
      stallMs: limits.stallMs,
      onBlocked: (reason) => this.#disconnect(reason),
    });
    this.#stderrBudget = this.#budget(limits.stderrLines, "stderr lines");
    this.#errorBudget = this.#budget(limits.loggedErrors, "protocol errors");
    this.#stderr = new StderrRelay({
      logger,
      budget: this.#stderrBudget,
      maxLineBytes: limits.stderrLineBytes,
    });
    this.#peer = this.#connect();
    this.#pumps.push(this.#pump(this.#child.stdout, (chunk) => this.#peer.receive(chunk)));
    this.#pumps.push(this.#pump(this.#child.stderr, (chunk) => this.#stderr.push(chunk)));
    this.#exited = this.#waitLoop();
  }

  #connect(): JsonRpcPeer {
    const { clock, ...options } = this.#options;
    return new JsonRpcPeer({
      write: (bytes, frames) => this.#queue.write(bytes, frames),
      writeText: (text, frames) => this.#queue.writeText(text, frames),
      onRequest: options.onRequest,
      onNotification: options.onNotification,
      onProtocolError: (message, detail) => this.#protocolError(message, detail),
      maxFrameBytes: this.#limits.maxFrameBytes,
      maxPending: this.#limits.maxPending,
      maxInflight: this.#limits.maxInflight,
      remote: `Plugin "${options.name}"`,
      setTimer: (ms, fn) => {
        const timer = clock.setTimer(ms, fn);
        return () => timer.cancel();
      },
      now: () => clock.monotonic(),
    });
  }

  #budget(limit: number, what: string): LogBudget {
    const { clock, logger, name } = this.#options;
    return new LogBudget({
      clock,
      limit,
      intervalMs: this.#limits.intervalMs,
      onSuppressed: (count, seconds) =>
        logger.warn(
          `Plugin "${name}": ${
            formatCount(count)
          } more ${what} suppressed in the last ${seconds} s`,
          { suppressed: count, seconds },
        ),
    });
  }

  /** A bad or unexpected frame: logged within its budget, and counted towards a flood. */
  #protocolError(message: string, detail?: Record<string, unknown>): void {
    const now = this.#options.clock.monotonic();
    const { intervalMs, maxErrors } = this.#limits;
    if (now - this.#errors.since >= intervalMs) this.#errors = { since: now, count: 0 };
    if (++this.#errors.count > maxErrors) {
      const seconds = Math.round(intervalMs / 1000);
      return this.#disconnect(
        `it sent ${formatCount(this.#errors.count)} malformed or unexpected frames in ${seconds} s`,
      );
    }
    if (this.#errorBudget.take()) this.#options.logger.warn(message, detail);
  }

  /** Cut a plugin that broke a limit: one log line, calls fail, the child is killed. */
  #disconnect(reason: string): void {
    if (this.#stopping || this.#disconnected) return;
    this.#disconnected = reason;
    this.#options.logger.error("Plugin disconnected", { reason });
    this.#queue.close();
    this.#peer.close(
      new RpcError(ErrorCode.internalError, `Plugin "${this.name}" was disconnected: ${reason}`),
    );
    this.#signal("SIGKILL");
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
      // Not awaited: a plugin that does not read would hold the close (and the stop) for ever.
      this.#writer.close().catch(() => {});
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

  async #waitLoop(): Promise<ExitInfo> {
    const status = await this.#child.status;
    const info: ExitInfo = {
      code: status.code,
      signal: status.signal,
      expected: this.#stopping && !this.#disconnected,
      disconnected: this.#disconnected,
    };
    this.#queue.close();
    this.#peer.close(
      new RpcError(ErrorCode.internalError, `Plugin "${this.name}" exited (code ${status.code})`),
    );
    this.#writer.abort().catch(() => {});
    // What it wrote before exiting is still in the pipes; a grandchild may hold them open
    // for ever, so drain briefly and then stop reading ourselves.
    const drained = new AbortController();
    await Promise.race([
      Promise.allSettled(this.#pumps),
      sleep(this.#options.clock, DRAIN_MS, drained.signal).catch(() => {}),
    ]);
    drained.abort();
    for (const reader of this.#readers) reader.cancel().catch(() => {});
    await Promise.allSettled(this.#pumps);
    this.#stderr.close();
    this.#stderrBudget.flush();
    this.#errorBudget.flush();
    this.#options.onExit?.(info);
    return info;
  }

  /**
   * Read `stream` into one reused buffer (a BYOB reader): the default reader allocates a fresh
   * 64 KiB chunk per read, on the path of every answer. `onChunk` must not keep the chunk.
   */
  async #pump(stream: ReadableStream<Uint8Array>, onChunk: (chunk: Uint8Array) => void) {
    const reader = stream.getReader({ mode: "byob" });
    this.#readers.push(reader);
    let buffer = new ArrayBuffer(64 * 1024);
    try {
      for (;;) {
        const { value, done } = await reader.read(new Uint8Array(buffer));
        if (done || !value) return;
        onChunk(value);
        buffer = value.buffer;
      }
    } catch {
      // cancelled after exit
    } finally {
      reader.releaseLock();
    }
  }
}

function spawn(name: string, command: PluginCommand): Deno.ChildProcess {
  try {
    return new Deno.Command(command.command, {
      args: command.args,
      cwd: command.cwd,
      env: command.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    throw new PluginError(name, `Cannot start plugin "${name}": ${errorMessage(error)}`, {
      cause: error,
    });
  }
}
