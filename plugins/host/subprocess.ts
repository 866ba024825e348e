/**
 * A subprocess plugin as a kernel Plugin: spawn, handshake (`plugin.init` with the protocol
 * version, then `plugin.start`, during which the plugin registers), and the bridge from its
 * registrations to the restricted PluginSDK.
 */
import {
  type Clock,
  errorMessage,
  HomeAgentError,
  isStageName,
  type Logger,
  type Plugin,
  PluginError,
  type PluginSDK,
  type ToolResult,
} from "../../core/mod.ts";
import {
  type Capability,
  compatibleVersion,
  ErrorCode,
  PROTOCOL_VERSION,
  RpcError,
  type WireToolDef,
} from "../sdk/protocol.ts";
import { createRestrictedApi, isApiMethod, type PluginServices, requireCapability } from "./api.ts";
import type { ChannelLimits } from "./limits.ts";
import type { Manifest } from "./manifest.ts";
import type { PluginCommand } from "./permissions.ts";
import { type ExitInfo, PluginProcess } from "./process.ts";
import { applyMutation, stageToWire } from "./stage_wire.ts";
import type { SettingsDefiner } from "./settings.ts";

/** Options of a subprocess plugin. */
export interface SubprocessPluginOptions {
  manifest: Manifest;
  command: PluginCommand;
  dataDir: string;
  clock: Clock;
  kernelVersion: string;
  services?: PluginServices;
  settings?: SettingsDefiner;
  /** Default per-call timeout (tool.call, stage.run, channel.send), ms. */
  callTimeoutMs?: number;
  /** Time allowed for plugin.init + plugin.start, ms. */
  startTimeoutMs?: number;
  /** Bounds of its channels (DEFAULT_CHANNEL_LIMITS where absent). */
  limits?: Partial<ChannelLimits>;
  graceMs?: number;
  /**
   * The child exited without being asked to (a crash) after a successful start. A failed
   * start is reported only by start() rejecting, so it counts as one crash, not two.
   */
  onCrash?: (reason: string) => void;
}

/** A Plugin backed by a child process speaking the protocol. */
export interface SubprocessPlugin extends Plugin {
  /** The running child, while started. */
  readonly process: PluginProcess | undefined;
}

/** Create the Plugin for a subprocess entry. */
export function createSubprocessPlugin(options: SubprocessPluginOptions): SubprocessPlugin {
  const { manifest } = options;
  const name = manifest.name;
  let proc: PluginProcess | undefined;
  return {
    name,
    get process() {
      return proc;
    },
    async start(sdk) {
      const logger = sdk.logger;
      const bridge = new Bridge(sdk, options, () => proc!);
      let started = false;
      let exit: ExitInfo | undefined;
      const child = new PluginProcess({
        name,
        command: options.command,
        clock: options.clock,
        logger,
        onRequest: (method, params) => bridge.handle(method, params),
        limits: options.limits,
        graceMs: options.graceMs,
        onExit: (info) => {
          exit = info;
          if (proc === child) proc = undefined;
          if (started && !info.expected) options.onCrash?.(describeExit(info));
        },
      });
      proc = child;
      try {
        await handshake(child, options, bridge);
        if (exit) throw new Error(`it ${describeExit(exit)} during start`);
        started = true;
      } catch (error) {
        proc = undefined;
        child.kill();
        await child.exited;
        if (error instanceof PluginError) throw error;
        throw new PluginError(name, `Plugin "${name}" failed to start: ${errorMessage(error)}`, {
          cause: error,
        });
      }
    },
    async stop() {
      const child = proc;
      proc = undefined;
      await child?.stop();
    },
  };
}

function describeExit(info: ExitInfo): string {
  if (info.disconnected) return `disconnected: ${info.disconnected}`;
  return info.signal ? `killed by ${info.signal}` : `exited with code ${info.code}`;
}

/**
 * A failed route call as the web app answers it: the plugin's RpcError data `{status: 404}` or
 * `{status: 409}` keep their status, anything else (including a timeout) is a 400.
 */
function asRouteError(plugin: string, error: unknown): HomeAgentError {
  const status = error instanceof RpcError && isObject(error.data) ? error.data.status : undefined;
  const code = status === 404
    ? "route_not_found"
    : status === 409
    ? "route_conflict"
    : "route_failed";
  return new HomeAgentError(code, `Plugin "${plugin}": ${errorMessage(error)}`, { cause: error });
}

/** A stage call that ran out of time, as the StageHost recognises it (and its breaker counts). */
function asStageError(error: unknown): unknown {
  if (error instanceof RpcError && error.code === ErrorCode.timeout) {
    return new DOMException(error.message, "TimeoutError");
  }
  return error;
}

async function handshake(
  child: PluginProcess,
  options: SubprocessPluginOptions,
  bridge: Bridge,
): Promise<void> {
  const { manifest } = options;
  const timeoutMs = options.startTimeoutMs ?? 10_000;
  const answer = await child.request("plugin.init", {
    protocolVersion: PROTOCOL_VERSION,
    kernelVersion: options.kernelVersion,
    name: manifest.name,
    dataDir: options.dataDir,
    settings: bridge.settingValues(),
  }, { timeoutMs }) as { protocolVersion?: unknown } | null;
  const version = typeof answer?.protocolVersion === "string" ? answer.protocolVersion : "?";
  if (!compatibleVersion(version, PROTOCOL_VERSION)) {
    throw new PluginError(
      manifest.name,
      `Plugin "${manifest.name}" speaks protocol "${version}", the kernel "${PROTOCOL_VERSION}"`,
    );
  }
  bridge.open = true;
  try {
    await child.request("plugin.start", {}, { timeoutMs });
  } finally {
    bridge.open = false;
  }
}

const REGISTRATION_CAPABILITY: Record<string, Capability> = {
  "tool.register": "tools",
  "stage.register": "stages",
  "channel.register": "channels",
  "input.register": "input",
  "events.subscribe": "events",
  "settings.define": "settings",
  "route.register": "routes",
};

/** Serves the plugin's requests: registrations during the start window, then the restricted API. */
class Bridge {
  open = false;
  #sdk: PluginSDK;
  #options: SubprocessPluginOptions;
  #proc: () => PluginProcess;
  #channels = new Set<string>();
  #settingKeys = new Set<string>();
  /** Tool calls in flight, by callId, for owner.ask (kept only with the "ask" capability). */
  #calls = new Map<string, { turnId: string; signal: AbortSignal }>();
  #api;

  constructor(sdk: PluginSDK, options: SubprocessPluginOptions, proc: () => PluginProcess) {
    this.#sdk = sdk;
    this.#options = options;
    this.#proc = proc;
    for (const key of Object.keys(options.manifest.settings)) this.#settingKeys.add(key);
    this.#api = createRestrictedApi({
      sdk,
      capabilities: options.manifest.capabilities,
      services: options.services,
      channels: this.#channels,
      settingKeys: () => [...this.#settingKeys],
      toolCall: (callId) => this.#calls.get(callId),
    });
  }

  get #logger(): Logger {
    return this.#sdk.logger;
  }

  settingValues(): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const key of this.#settingKeys) {
      try {
        values[key] = this.#sdk.settings.get(key);
      } catch {
        // not defined (yet)
      }
    }
    return values;
  }

  handle(method: string, params: unknown): unknown {
    if (isApiMethod(method)) return this.#api(method, params);
    const capability = REGISTRATION_CAPABILITY[method];
    if (!capability) throw new RpcError(ErrorCode.methodNotFound, `Method "${method}" not found`);
    const plugin = this.#sdk.pluginName;
    requireCapability(plugin, this.#options.manifest.capabilities, capability, method);
    if (!this.open) {
      throw new RpcError(
        ErrorCode.registrationClosed,
        `"${method}" is allowed only while plugin.start runs`,
      );
    }
    const p = (params ?? {}) as Record<string, unknown>;
    try {
      this.#register(method, p);
    } catch (error) {
      if (error instanceof RpcError) throw error;
      throw new RpcError(ErrorCode.invalidParams, errorMessage(error));
    }
    return null;
  }

  #register(method: string, p: Record<string, unknown>): void {
    const sdk = this.#sdk;
    const timeoutMs = this.#options.manifest.timeout_ms ?? this.#options.callTimeoutMs ?? 30_000;
    switch (method) {
      case "tool.register": {
        const def = p as unknown as WireToolDef;
        const toolTimeout = typeof def.timeoutMs === "number" ? def.timeoutMs : timeoutMs;
        const asks = this.#options.manifest.capabilities.includes("ask");
        const accept = (result: unknown) => toolResult(sdk.pluginName, String(def.name), result);
        sdk.registerTool({
          name: String(def.name),
          description: String(def.description ?? ""),
          parameters: isObject(def.parameters) ? def.parameters : { type: "object" },
          timeoutMs: toolTimeout,
          parallelSafe: def.parallelSafe === true,
          noMemory: def.noMemory === true,
          always: def.always === true,
          handler: (args, context) => {
            // The request's own promise, not an async wrapper: each await is a hop on every call.
            const call = this.#proc().request("tool.call", {
              name: def.name,
              args,
              turnId: context.turnId,
              callId: context.callId,
            }, { timeoutMs: toolTimeout, signal: context.signal, accept }) as Promise<ToolResult>;
            if (!asks) return call;
            // A question asked for this call ends with it: stopped, timed out or answered.
            const ended = new AbortController();
            const signal = AbortSignal.any([context.signal, ended.signal]);
            this.#calls.set(context.callId, { turnId: context.turnId, signal });
            return call.finally(() => {
              this.#calls.delete(context.callId);
              ended.abort();
            });
          },
        });
        return;
      }
      case "route.register": {
        const method = p.method;
        if (method !== "GET" && method !== "POST") {
          throw new TypeError(
            `Route method must be "GET" or "POST", not ${JSON.stringify(method)}`,
          );
        }
        const path = String(p.path);
        sdk.registerRoute({
          method,
          path,
          handler: (request) =>
            this.#proc().request("route.call", { ...request, path }, { timeoutMs }).catch(
              (error) => Promise.reject(asRouteError(sdk.pluginName, error)),
            ),
        });
        return;
      }
      case "stage.register": {
        const stage = p.stage;
        if (!isStageName(stage)) throw new TypeError(`Unknown stage "${p.stage}"`);
        const handler = Number(p.handler);
        const scope = p.scope === "own_tools" ? "own_tools" : "global";
        sdk.registerStage(stage, async (context) => {
          const mutation = await this.#proc().request("stage.run", {
            handler,
            context: stageToWire(context),
          }, { timeoutMs }).catch((error) => Promise.reject(asStageError(error)));
          applyMutation(context, mutation);
        }, scope);
        return;
      }
      case "channel.register": {
        const channel = String(p.name);
        sdk.registerOutputChannel(
          channel,
          Number(p.caps) || 1,
          String(p.description ?? ""),
          async (message) =>
            void await this.#proc().request("channel.send", { channel, message }, { timeoutMs }),
          typeof p.help === "string" ? p.help : undefined,
        );
        this.#channels.add(channel);
        return;
      }
      case "input.register":
        this.#channels.add(String(p.name));
        return;
      case "events.subscribe":
        for (const type of Array.isArray(p.types) ? p.types : []) {
          sdk.subscribe(
            String(type) as "output",
            (event) => this.#proc().notify("event", { event }),
          );
        }
        return;
      case "settings.define": {
        const key = String(p.key);
        this.#options.settings?.define(sdk.pluginName, key, p.definition);
        this.#settingKeys.add(key);
        this.#logger.debug("Setting defined", { key });
        return;
      }
    }
  }
}

/**
 * A plugin's answer to tool.call, checked before the turn sees it: `{content: string,
 * isError?: boolean}` and nothing else (a null or a number there once reached the model as is).
 */
function toolResult(plugin: string, tool: string, result: unknown): ToolResult {
  if (isObject(result) && typeof result.content === "string") {
    if (result.isError === undefined || result.isError === false) {
      return { content: result.content };
    }
    if (result.isError === true) return { content: result.content, isError: true };
  }
  const got = JSON.stringify(result)?.slice(0, 100) ?? String(result);
  throw new PluginError(
    plugin,
    `Plugin "${plugin}" answered tool "${tool}" with ${got}, not {content: string, isError?: boolean}`,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
