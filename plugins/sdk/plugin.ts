/**
 * createPlugin: a subprocess plugin's side of the protocol (docs/PLUGIN_PROTOCOL.md): the
 * handshake, registrations in the start window, tool calls, stages, channels, events, owner
 * questions and routes, over a JSON-RPC peer on stdin/stdout.
 */
import { JsonRpcPeer } from "./rpc.ts";
import {
  compatibleVersion,
  ErrorCode,
  type KernelToPlugin,
  PROTOCOL_VERSION,
  RpcError,
  type SettingDefinition,
  type StageMutation,
  type StageName,
  type WireInject,
  type WireOutputMessage,
  type WireOwnerAnswer,
  type WireOwnerQuestion,
  type WireRouteRequest,
  type WireStageContext,
  type WireToolDef,
  type WireToolResult,
} from "./protocol.ts";

/** What a tool handler receives besides its arguments. */
export interface ToolCallContext {
  turnId: string;
  callId: string;
  /** Aborted when the kernel gives up on the call (timeout, stop). */
  signal: AbortSignal;
}

/** A tool handler: a string or a result; throwing becomes an error result. */
export type ToolHandler = (
  args: Record<string, unknown>,
  context: ToolCallContext,
) => string | WireToolResult | Promise<string | WireToolResult>;

/** A stage handler: returns the mutations to apply, or nothing. */
export type StageHandlerFn = (
  context: WireStageContext,
) => StageMutation | void | Promise<StageMutation | void>;

/** An output channel handler: deliver the message or throw. */
export type ChannelHandler = (message: WireOutputMessage) => void | Promise<void>;

/** An event handler for a subscribed kernel event type. */
export type EventListener = (event: { type: string; [key: string]: unknown }) => void;

/** The kernel as a plugin sees it: the restricted SDK over JSON-RPC. */
export interface KernelClient {
  /** Queue an input; with `wait: true` resolves with its reply. */
  injectInput(text: string, options?: Omit<WireInject, "text">): Promise<unknown>;
  /** Inject an interrupt (priority 1–3; 4 is clamped to 3). */
  injectInterrupt(text: string, options?: Omit<WireInject, "text" | "wait">): Promise<unknown>;
  getSetting<T = unknown>(key: string): Promise<T>;
  setSetting(key: string, value: unknown): Promise<void>;
  /**
   * Ask the owner a yes/no question (capability "ask") and wait for the answer. Pass the tool
   * call's `callId` when asking for one: a stopped turn then cancels the question.
   */
  askOwner(question: WireOwnerQuestion): Promise<WireOwnerAnswer>;
  /** Any restricted SDK method by name (memory.recall, doc.query, knowledge.search, …). */
  call(method: string, params?: unknown): Promise<unknown>;
}

/** Where a plugin reads and writes frames; defaults to the process's stdin and stdout. */
export interface PluginIo {
  /** Read into `buffer`; the byte count, or null at end of input. */
  read(buffer: Uint8Array): Promise<number | null>;
  write(bytes: Uint8Array): void;
  /** `write` is synchronous: done with the bytes when it returns (stdio's is). */
  synchronous?: boolean;
}

/** Options of createPlugin. */
export interface CreatePluginOptions {
  name: string;
  version?: string;
}

/** Data the kernel handed over at plugin.init. */
export interface PluginInit {
  kernelVersion: string;
  dataDir: string;
  settings: Record<string, unknown>;
}

type Registration = { method: string; params: unknown };

/** Answers one web request to a route; throw RouteError for a 404 or 409. */
export type RouteHandler = (request: WireRouteRequest) => unknown | Promise<unknown>;

/** A route's refusal with its HTTP status: 404 (not found), 409 (conflict), else 400. */
export class RouteError extends RpcError {
  constructor(status: 400 | 404 | 409, message: string) {
    super(ErrorCode.invalidParams, message, { status });
  }
}

/** A plugin under construction: declare tools, stages and channels, then `serve()`. */
export interface PluginBuilder {
  tool(def: WireToolDef, handler: ToolHandler): PluginBuilder;
  stage(
    stage: StageName,
    handler: StageHandlerFn,
    options?: { scope?: "global" | "own_tools" },
  ): PluginBuilder;
  outputChannel(
    def: { name: string; caps: number; description: string; help?: string },
    handler: ChannelHandler,
  ): PluginBuilder;
  inputChannel(name: string): PluginBuilder;
  setting(key: string, definition: SettingDefinition): PluginBuilder;
  /** Offer `/api/v1/plugins/<name>/<path>` to the web page (capability "routes"). */
  route(method: "GET" | "POST", path: string, handler: RouteHandler): PluginBuilder;
  on(types: string | string[], listener: EventListener): PluginBuilder;
  /** Runs after registration, inside plugin.start (the kernel is callable). */
  onStart(fn: (kernel: KernelClient, init: PluginInit) => void | Promise<void>): PluginBuilder;
  onStop(fn: () => void | Promise<void>): PluginBuilder;
  /** Serve the protocol until stdin closes. */
  serve(io?: PluginIo): Promise<void>;
}

/** Start building a plugin. */
export function createPlugin(options: CreatePluginOptions): PluginBuilder {
  const tools = new Map<string, ToolHandler>();
  const stages: StageHandlerFn[] = [];
  const channels = new Map<string, ChannelHandler>();
  const routes = new Map<string, RouteHandler>();
  const listeners: { types: string[]; listener: EventListener }[] = [];
  const registrations: Registration[] = [];
  const starts: ((kernel: KernelClient, init: PluginInit) => void | Promise<void>)[] = [];
  const stops: (() => void | Promise<void>)[] = [];
  const running = new Map<number | string, AbortController>();
  let init: PluginInit = { kernelVersion: "", dataDir: "", settings: {} };

  const builder: PluginBuilder = {
    tool(def, handler) {
      tools.set(def.name, handler);
      registrations.push({ method: "tool.register", params: def });
      return builder;
    },
    stage(stage, handler, opts) {
      stages.push(handler);
      registrations.push({
        method: "stage.register",
        params: { stage, handler: stages.length - 1, scope: opts?.scope },
      });
      return builder;
    },
    outputChannel(def, handler) {
      channels.set(def.name, handler);
      registrations.push({ method: "channel.register", params: def });
      return builder;
    },
    inputChannel(name) {
      registrations.push({ method: "input.register", params: { name } });
      return builder;
    },
    setting(key, definition) {
      registrations.push({ method: "settings.define", params: { key, definition } });
      return builder;
    },
    route(method, path, handler) {
      routes.set(`${method} ${path}`, handler);
      registrations.push({ method: "route.register", params: { method, path } });
      return builder;
    },
    on(types, listener) {
      const list = Array.isArray(types) ? types : [types];
      listeners.push({ types: list, listener });
      registrations.push({ method: "events.subscribe", params: { types: list } });
      return builder;
    },
    onStart(fn) {
      starts.push(fn);
      return builder;
    },
    onStop(fn) {
      stops.push(fn);
      return builder;
    },
    async serve(io = stdio()) {
      const peer: JsonRpcPeer = new JsonRpcPeer({
        write: io.write,
        reuseBuffer: io.synchronous === true,
        onRequest: (method, params, id) => handle(method, params, id),
        onNotification: (method, params) => {
          const p = params as Record<string, unknown> | undefined;
          if (method === "$/cancel") running.get(p?.id as number)?.abort();
          if (method !== "event") return;
          const event = p?.event as { type: string };
          for (const l of listeners) {
            if (l.types.includes(event.type) || l.types.includes("*")) l.listener(event);
          }
        },
        onProtocolError: (message, detail) => log("warn", message, detail),
      });
      const kernel = kernelClient(peer);
      const handle = (method: string, params: unknown, id: number | string): unknown => {
        const p = (params ?? {}) as Record<string, unknown>;
        switch (method) {
          case "plugin.init":
            return onInit(p as KernelToPlugin["plugin.init"]["params"]);
          case "plugin.start":
            return (async () => {
              for (const r of registrations) await peer.request(r.method, r.params);
              for (const fn of starts) await fn(kernel, init);
              return {};
            })();
          case "plugin.stop":
            return (async () => {
              for (const fn of stops) await fn();
              return {};
            })();
          case "tool.call":
            return callTool(p as KernelToPlugin["tool.call"]["params"], id);
          case "stage.run": {
            const handler = stages[p.handler as number];
            if (!handler) throw new RpcError(ErrorCode.invalidParams, "Unknown stage handler");
            return Promise.resolve(handler(p.context as WireStageContext)).then((m) => m ?? {});
          }
          case "channel.send": {
            const handler = channels.get(String(p.channel));
            if (!handler) throw new RpcError(ErrorCode.invalidParams, `Unknown channel`);
            return Promise.resolve(handler(p.message as WireOutputMessage)).then(() => null);
          }
          case "route.call": {
            const handler = routes.get(`${p.method} ${p.path}`);
            if (!handler) throw new RouteError(404, `No route "${p.method} ${p.path}"`);
            return Promise.resolve(handler(p as unknown as WireRouteRequest)).then((r) => r ?? {});
          }
          default:
            throw new RpcError(ErrorCode.methodNotFound, `Method "${method}" not found`);
        }
      };
      const onInit = (p: KernelToPlugin["plugin.init"]["params"]) => {
        if (!compatibleVersion(p.protocolVersion, PROTOCOL_VERSION)) {
          throw new RpcError(
            ErrorCode.versionMismatch,
            `Plugin speaks protocol ${PROTOCOL_VERSION}, kernel ${p.protocolVersion}`,
          );
        }
        init = { kernelVersion: p.kernelVersion, dataDir: p.dataDir, settings: p.settings };
        return { protocolVersion: PROTOCOL_VERSION, name: options.name, version: options.version };
      };
      // A handler that answers at once is answered without a promise (every hop is on the
      // round trip of every call); one that returns a promise can be cancelled meanwhile.
      const callTool = (p: KernelToPlugin["tool.call"]["params"], id: number | string) => {
        const handler = tools.get(p.name);
        if (!handler) throw new RpcError(ErrorCode.invalidParams, `Unknown tool "${p.name}"`);
        // Made when the handler reads its signal or goes async: most answer at once.
        let controller: AbortController | undefined;
        const context = {
          turnId: p.turnId,
          callId: p.callId,
          get signal() {
            return (controller ??= new AbortController()).signal;
          },
        };
        let out: ReturnType<ToolHandler>;
        try {
          out = handler(p.args, context);
        } catch (error) {
          return toolError(error);
        }
        if (!(out instanceof Promise)) return toolResult(out);
        running.set(id, controller ??= new AbortController());
        return out.then(toolResult, toolError).finally(() => running.delete(id));
      };
      const buffer = new Uint8Array(64 * 1024);
      try {
        for (;;) {
          const n = await io.read(buffer);
          if (n === null) break;
          peer.receive(buffer.subarray(0, n)); // the splitter copies what it keeps
          // Let the answers of this chunk go out (their write is queued as a microtask) before
          // the next read is started: the read's set-up would otherwise delay every reply.
          await null;
        }
      } finally {
        peer.close();
      }
    },
  };
  return builder;
}

function toolResult(out: string | WireToolResult): WireToolResult {
  return typeof out === "string" ? { content: out } : out;
}

function toolError(error: unknown): WireToolResult {
  return { content: error instanceof Error ? error.message : String(error), isError: true };
}

function kernelClient(peer: JsonRpcPeer): KernelClient {
  return {
    injectInput: (text, opts = {}) => peer.request("input.inject", { ...opts, text }),
    injectInterrupt: (text, opts = {}) => peer.request("input.interrupt", { ...opts, text }),
    getSetting: async <T>(key: string) =>
      ((await peer.request("settings.get", { key })) as { value: T }).value,
    setSetting: async (key, value) => void await peer.request("settings.set", { key, value }),
    askOwner: async (question) =>
      ((await peer.request("owner.ask", question)) as { answer: WireOwnerAnswer }).answer,
    call: (method, params) => peer.request(method, params ?? {}),
  };
}

/** The process's stdin and stdout; writes are synchronous so frames never interleave. */
export function stdio(): PluginIo {
  return {
    read: (buffer) => Deno.stdin.read(buffer),
    synchronous: true,
    write(bytes) {
      let written = 0;
      try {
        while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
      } catch {
        // the kernel went away; stdin will close and serve() returns
      }
    },
  };
}

/** Log one JSON line to stderr; the host re-logs it with the plugin's name. */
export function log(
  level: "debug" | "info" | "warn" | "error",
  msg: string,
  fields: Record<string, unknown> = {},
): void {
  const line = JSON.stringify({ level, msg, ...fields }) + "\n";
  try {
    Deno.stderr.writeSync(new TextEncoder().encode(line));
  } catch {
    // stderr closed
  }
}
