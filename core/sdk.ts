/**
 * The plugin SDK surface: the Plugin interface and the four channels (tools, stages, events,
 * output channels) plus input injection. Built-in plugins get it directly; subprocess plugins
 * get the same surface over JSON-RPC, restricted.
 */
import type { Agent, InjectResult, KernelStatus } from "./kernel/agent.ts";
import type { StopResult } from "./kernel/event_loop.ts";
import type { EventHandler, EventOf, KernelEvent, StageName } from "./events.ts";
import type { InjectOptions, PriorityLevel, Reply } from "./input.ts";
import type { OutputHandler } from "./kernel/output.ts";
import type { Logger } from "./ports.ts";
import type { StageHandler, StageScope } from "./kernel/stages.ts";
import type { ToolDef } from "./kernel/tools.ts";
import { PluginError } from "./errors.ts";
import type { z } from "zod";
import type { OwnerAnswer, OwnerQuestion, OwnerQuestionRequest } from "./kernel/questions.ts";
import type { PluginRoute } from "./kernel/routes.ts";
import { MediaError, type MediaLimits, type MediaRef } from "./memory/media.ts";

/** A plugin: started with its SDK, stopped on shutdown or reload. */
export interface Plugin {
  readonly name: string;
  start(sdk: PluginSDK): Promise<void> | void;
  stop(): Promise<void> | void;
}

/** A setting a plugin declares: `key` is relative (`policy` → `plugin.<name>.policy`). */
export interface PluginSettingDefinition<T = unknown> {
  key: string;
  /** Built, or a function that builds it on the key's first use (ConfigDefinition). */
  schema: z.ZodType<T> | (() => z.ZodType<T>);
  default: T;
  description: string;
  secret?: boolean;
}

/** A plugin's view of its own settings, `plugin.<name>.*`. */
export interface PluginSettings {
  get<T = unknown>(key: string): T;
  set(key: string, value: unknown): void;
  /**
   * Declare a setting in the ConfigRegistry; a key defined already (a restart, or the command
   * line's offline definitions) is left as it is. Throws TypeError for a bad definition.
   */
  define<T>(definition: PluginSettingDefinition<T>): void;
}

/** The config operations the SDK maps plugin settings onto. */
export interface SdkConfig {
  get<T = unknown>(key: string): T;
  set(key: string, value: unknown): void;
  define?<T>(definition: {
    key: string;
    schema: z.ZodType<T> | (() => z.ZodType<T>);
    default: T;
    description: string;
    secret?: boolean;
  }): void;
  isDefined?(key: string): boolean;
}

/** What a plugin can do. Registrations are detached automatically when the plugin stops. */
export interface PluginSDK {
  readonly pluginName: string;
  readonly logger: Logger;
  /** Whether this is the restricted (external plugin) surface. */
  readonly restricted: boolean;
  registerTool(def: ToolDef): void;
  /** Remove one of this plugin's own tools (a tool another plugin owns is left alone). */
  unregisterTool(name: string): boolean;
  registerStage(stage: StageName, handler: StageHandler, scope?: StageScope): void;
  subscribe<T extends KernelEvent["type"]>(
    type: T | "*",
    handler: EventHandler<EventOf<T>>,
  ): () => void;
  /** Publish a custom event; refused on the restricted surface. */
  publish(name: string, data: unknown): void;
  registerOutputChannel(
    name: string,
    caps: number,
    description: string,
    handler: OutputHandler,
    help?: string,
  ): void;
  injectInput(text: string, options?: InjectOptions): InjectResult;
  injectInterrupt(text: string, options?: InjectOptions): InjectResult;
  injectInputSync(text: string, options?: InjectOptions): Promise<Reply>;
  /** Cancel the running turn, as the owner's stop button does. */
  stopCurrentTurn(): boolean;
  /** Stop: cancel the running and suspended turns and short-circuit what waits right now. */
  stop(): StopResult;
  status(): KernelStatus;
  readonly settings: PluginSettings;
  /**
   * Ask the owner a yes/no question and wait (docs/PLUGIN_GUIDE.md "Asking the owner"). Never
   * rejects: resolves "approved", "denied", "timeout", or "cancelled" when `signal` aborts.
   */
  askOwner(
    request: OwnerQuestionRequest,
    options?: { signal?: AbortSignal },
  ): Promise<OwnerAnswer>;
  /**
   * Store an image for an input (`injectInput(text, { media: [ref] })`). The bytes decide the
   * type; rejects with MediaError when media memory is off or the image is refused (size,
   * type, pixels).
   */
  storeMedia(bytes: Uint8Array, options?: { declaredMime?: string }): Promise<MediaRef>;
  /** The bounds storeMedia holds images to; undefined when the daemon keeps no media. */
  readonly mediaLimits?: MediaLimits;
  /** Offer a JSON route at `/api/v1/plugins/<plugin>/<path>` (docs/PLUGIN_GUIDE.md). */
  registerRoute(route: PluginRoute): void;
  /**
   * The owner's side of the questions, for a channel the owner sits at (the CLI). Refused on
   * the restricted surface: a plugin never answers a question for the owner.
   */
  readonly questions: {
    pending(): OwnerQuestion[];
    answer(id: string, approve: boolean): boolean;
  };
}

/** Options of createPluginSdk. */
export interface PluginSdkOptions {
  agent: Agent;
  config: SdkConfig;
  logger: Logger;
  restricted?: boolean;
}

/** The SDK handed to `plugin`, plus `detach()` which removes everything it registered. */
export function createPluginSdk(
  plugin: string,
  options: PluginSdkOptions,
): { sdk: PluginSDK; detach(): void } {
  const { agent, config } = options;
  const restricted = options.restricted ?? false;
  const unsubscribes: (() => void)[] = [];
  const clamp = (priority?: PriorityLevel): PriorityLevel | undefined =>
    restricted && priority === 4 ? 3 : priority;
  const scoped = (key: string) => `plugin.${plugin}.${key}`;

  const sdk: PluginSDK = {
    pluginName: plugin,
    logger: options.logger,
    restricted,
    registerTool: (def) => void agent.tools.register(def, plugin),
    unregisterTool: (name) =>
      agent.tools.get(name)?.plugin === plugin && agent.tools.unregister(name),
    registerStage: (stage, handler, scope) =>
      void agent.stages.register(stage, handler, { plugin, scope }),
    subscribe: (type, handler) => {
      const off = agent.events.subscribe(type, handler);
      unsubscribes.push(off);
      return off;
    },
    publish: (name, data) => {
      if (restricted) {
        throw new PluginError(plugin, `Plugin "${plugin}" may not publish events`);
      }
      agent.events.publish({ type: "custom", name, source: plugin, data });
    },
    registerOutputChannel: (name, caps, description, handler, help) =>
      void agent.outputs.register({ name, plugin, caps, description, handler, help }),
    injectInput: (text, opts = {}) =>
      agent.injectInput(plugin, text, { ...opts, priority: clamp(opts.priority) }),
    injectInterrupt: (text, opts = {}) =>
      agent.injectInterrupt(plugin, text, { ...opts, priority: clamp(opts.priority ?? 1) }),
    injectInputSync: (text, opts = {}) =>
      agent.injectInputSync(plugin, text, { ...opts, priority: clamp(opts.priority) }),
    stopCurrentTurn: () => agent.stopCurrentTurn(),
    stop: () => agent.stop(),
    status: () => agent.status(),
    settings: {
      get: (key) => config.get(scoped(key)),
      set: (key, value) => config.set(scoped(key), value),
      define: (definition) => {
        if (!config.define) throw new TypeError("This kernel cannot define plugin settings");
        const key = scoped(definition.key);
        if (config.isDefined?.(key)) return;
        config.define({ ...definition, key });
      },
    },
    askOwner: (request, opts) => agent.questions.ask(plugin, request, opts),
    registerRoute: (route) => agent.routes.register(plugin, route),
    storeMedia: (bytes, opts) =>
      agent.media?.enabled ? agent.media.put(bytes, opts) : Promise.reject(
        new MediaError("disabled", "Media memory is off (core.memory.media.enabled = false)"),
      ),
    mediaLimits: agent.media?.enabled ? agent.media.limits : undefined,
    questions: {
      pending: () => agent.questions.pending(),
      answer: (id, approve) => {
        if (restricted) {
          throw new PluginError(plugin, `Plugin "${plugin}" may not answer the owner's questions`);
        }
        return agent.questions.answer(id, approve, plugin);
      },
    },
  };
  const detach = () => {
    for (const off of unsubscribes.splice(0)) off();
    agent.routes.unregisterPlugin(plugin);
    agent.questions.cancelPlugin(plugin);
    agent.tools.unregisterPlugin(plugin);
    agent.stages.unregisterPlugin(plugin);
    agent.outputs.unregisterPlugin(plugin);
  };
  return { sdk, detach };
}
