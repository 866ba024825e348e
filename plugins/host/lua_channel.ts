/**
 * The kernel's side of one Lua plugin's worker (lua_worker.ts): starts it, runs one call at a
 * time on it, answers its requests, and watches it. The VM's budget stops a runaway script from
 * inside; the watchdog here is for what the budget cannot see (a C function it does not bound):
 * a call busy past its time limit, not counting its waits on the host, has its worker
 * terminated. A call that ran out of memory ends its worker too, so the memory goes back at once.
 * Either way the channel dies, every call in flight fails, and onDeath tells the owner.
 */
import {
  type Clock,
  describeBreach,
  errorMessage,
  type LuaLimits,
  PluginError,
  type TimerHandle,
} from "../../core/mod.ts";
import { luaWorkerBundle } from "./bundled.ts";
import { type HostMessage, type LuaEntry, WorkerMessage } from "./lua_wire.ts";

let bundledWorker: string | undefined;

/** The worker module: its file in the source tree; in a bundle, the copy the bundle carries. */
function workerUrl(): string {
  const carried = luaWorkerBundle();
  if (carried === undefined) return new URL("./lua_worker.ts", import.meta.url).href;
  bundledWorker ??= URL.createObjectURL(new Blob([carried], { type: "text/javascript" }));
  return bundledWorker;
}

/** How long a worker may take to load wasmoon and its VM. */
const SPAWN_TIMEOUT_MS = 15_000;

/** Options of LuaChannel.open. */
export interface LuaChannelOptions {
  plugin: string;
  clock: Clock;
  limits: LuaLimits;
  /** Wall cap of one call, waits on the host included, ms. */
  wallMs: number;
  wasmPath?: string;
  /** Answer one request of the script (registrations, the restricted API, HTTP). */
  onRequest(method: string, params: unknown): Promise<unknown>;
  onLog(level: string, message: string): void;
  /** The worker died (watchdog, memory, crash); not called for close(). */
  onDeath(reason: string): void;
}

interface Running {
  id: number;
  label: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** A started worker. call() throws PluginError; nothing else throws once open resolved. */
export class LuaChannel {
  readonly #options: LuaChannelOptions;
  readonly #worker: Worker;
  readonly #watchMs: number;
  #queue: Promise<unknown> = Promise.resolve();
  #running?: Running;
  #nextCall = 1;
  #unanswered = new Set<number>();
  #waitingOn?: number;
  #watchdog?: TimerHandle;
  #dead?: string;
  #ready?: { resolve(): void; reject(error: Error): void };
  /** Bytes the VM held after its last call. */
  memoryBytes = 0;

  private constructor(options: LuaChannelOptions) {
    this.#options = options;
    const { timeMs } = options.limits;
    // Wide enough that a busy machine delaying the VM's own stop does not end a healthy VM.
    this.#watchMs = timeMs + Math.max(200, Math.ceil(timeMs / 4));
    this.#worker = new Worker(workerUrl(), { type: "module" });
    this.#worker.onmessage = (event) => this.#receive(event.data);
    this.#worker.onerror = (event) => {
      event.preventDefault();
      this.#die(`its worker failed: ${event.message}`);
    };
    this.#worker.onmessageerror = () => this.#die("its worker sent a message that cannot be read");
  }

  /** Start a worker and its VM. Throws PluginError when it does not come up. */
  static async open(options: LuaChannelOptions): Promise<LuaChannel> {
    const channel = new LuaChannel(options);
    const ready = new Promise<void>((resolve, reject) => channel.#ready = { resolve, reject });
    const timer = options.clock.setTimer(SPAWN_TIMEOUT_MS, () => {
      channel.#die(`its worker did not start within ${SPAWN_TIMEOUT_MS} ms`);
    });
    channel.#post({
      type: "init",
      plugin: options.plugin,
      limits: options.limits,
      wallMs: options.wallMs,
      ...(options.wasmPath ? { wasmPath: options.wasmPath } : {}),
    });
    try {
      await ready;
      return channel;
    } finally {
      timer.cancel();
    }
  }

  /** Whether a call is running now. */
  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Run `entry` after the calls before it; `label` names it in errors (`tool "greet"`). */
  call(entry: LuaEntry, args: unknown[], label: string): Promise<unknown> {
    const next = this.#queue.then(() => this.#start(entry, args, label));
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Terminate the worker (idempotent); calls in flight fail. */
  close(reason = "it was stopped"): void {
    if (this.#dead) return;
    this.#end(reason);
  }

  #start(entry: LuaEntry, args: unknown[], label: string): Promise<unknown> {
    if (this.#dead) return Promise.reject(this.#deadError(label));
    return new Promise((resolve, reject) => {
      const id = this.#nextCall++;
      this.#running = { id, label, resolve, reject };
      this.#post({ type: "call", id, entry, args });
      this.#arm();
    });
  }

  #receive(raw: unknown): void {
    const parsed = WorkerMessage.safeParse(raw);
    if (!parsed.success) return this.#die("its worker sent an invalid message");
    const message = parsed.data;
    switch (message.type) {
      case "ready":
        this.#ready?.resolve();
        return;
      case "fatal":
        return this.#die(`its VM did not start: ${message.error}`);
      case "log":
        return this.#options.onLog(message.level, message.message);
      case "request":
        this.#unanswered.add(message.id);
        void this.#answer(message.id, message.method, message.params);
        return;
      case "wait":
        if (!this.#unanswered.has(message.on)) return; // answered already: still busy
        this.#waitingOn = message.on;
        this.#disarm();
        return;
      case "result":
        return this.#finish(message);
    }
  }

  async #answer(id: number, method: string, params: unknown): Promise<void> {
    let reply: HostMessage;
    try {
      reply = { type: "reply", id, ok: true, value: await this.#options.onRequest(method, params) };
    } catch (error) {
      reply = { type: "reply", id, ok: false, error: errorMessage(error) };
    }
    if (this.#dead) return;
    this.#unanswered.delete(id);
    this.#post(reply);
    if (this.#waitingOn === id) {
      this.#waitingOn = undefined;
      if (this.#running) this.#arm();
    }
  }

  #finish(message: Extract<WorkerMessage, { type: "result" }>): void {
    const running = this.#running;
    if (!running || running.id !== message.id) {
      return this.#die("its worker answered a call it was not given");
    }
    this.#disarm();
    this.#running = undefined;
    this.#waitingOn = undefined;
    this.memoryBytes = message.memoryBytes;
    const { plugin } = this.#options;
    if (message.ok) return running.resolve(message.value ?? null);
    if (message.breach) {
      const text = `Lua plugin "${plugin}" stopped in ${running.label}: ${
        describeBreach(message.breach)
      }`;
      running.reject(new PluginError(plugin, text));
      // Its wasm memory stays grown: ending the worker is how the memory goes back.
      if (message.breach.kind === "memory") this.#die(describeBreach(message.breach));
      return;
    }
    running.reject(
      new PluginError(
        plugin,
        `Lua plugin "${plugin}" failed in ${running.label}: ${message.error}`,
      ),
    );
  }

  #arm(): void {
    this.#disarm();
    this.#watchdog = this.#options.clock.setTimer(this.#watchMs, () => {
      const label = this.#running?.label ?? "a call";
      this.#die(`${label} ran past its time limit of ${this.#options.limits.timeMs} ms`);
    });
  }

  #disarm(): void {
    this.#watchdog?.cancel();
    this.#watchdog = undefined;
  }

  /** The worker is gone or must go: fail everything and tell the owner. */
  #die(reason: string): void {
    if (this.#dead) return;
    this.#end(reason);
    this.#options.onDeath(reason);
  }

  #end(reason: string): void {
    this.#dead = reason;
    this.#disarm();
    this.#worker.terminate();
    const error = new PluginError(
      this.#options.plugin,
      `Lua plugin "${this.#options.plugin}" ${reason}`,
    );
    this.#ready?.reject(error);
    const running = this.#running;
    this.#running = undefined;
    running?.reject(this.#deadError(running.label));
  }

  #deadError(label: string): PluginError {
    const { plugin } = this.#options;
    return new PluginError(
      plugin,
      `Lua plugin "${plugin}" stopped in ${label}: ${this.#dead}; its VM was ended`,
    );
  }

  #post(message: HostMessage): void {
    this.#worker.postMessage(message);
  }
}
