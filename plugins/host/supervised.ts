/**
 * One plugin under supervision: started with an SDK of its own (detached again on stop or
 * crash), its start bounded in time, a crash answered by a restart on the CrashPolicy's
 * schedule or, past it, by giving up with a kernel notice. The PluginRegistry holds one per
 * plugin and decides which to start; this file decides what starting and crashing mean.
 */
import {
  type Agent,
  type Clock,
  createPluginSdk,
  errorMessage,
  type Logger,
  type Plugin,
  type TimerHandle,
} from "../../core/mod.ts";
import type { LoadedPlugin } from "./loader.ts";
import type { Manifest } from "./manifest.ts";
import { type HostConfig, PLUGIN_HOST_KEYS } from "./settings.ts";
import { CrashPolicy, type CrashPolicyOptions, startWithin } from "./supervisor.ts";

/** How a plugin is loaded. */
export type PluginKind = "builtin" | "subprocess" | "lua" | "skill";

/** A plugin as `plugin list` and `status` show it. */
export interface PluginInfo {
  name: string;
  kind: PluginKind;
  version?: string;
  state: "running" | "stopped" | "failed" | "disabled" | "restarting";
  error?: string;
  /** Crashes in the last 5 minutes. */
  crashes: number;
  /** Restarts after a crash since the registry started it (each attempt counts). */
  restarts: number;
  /** The newest crash: when (wall clock, ms) and why. */
  lastCrash?: { at: number; reason: string };
  /** What it is for, from its manifest (installed plugins). */
  description?: string;
  /** What its manifest asks for (installed plugins). */
  permissions?: PluginPermissions;
  /** A built-in the owner may turn off (`core.plugins.<name>.enabled`). */
  optional?: boolean;
  pid?: number;
  /** Bytes a Lua plugin's VM holds. */
  memoryBytes?: number;
  sha256?: string;
  tools: string[];
  channels: string[];
  /** The plugin's settings (`plugin.<name>.*`), secrets masked. */
  settings: { key: string; value: unknown }[];
}

/** A manifest's declared permissions and capabilities, as `list` shows them. */
export interface PluginPermissions {
  capabilities: string[];
  read: string[];
  write: string[];
  net: string[];
  env: string[];
  run: string[];
}

/** What every supervised plugin of one registry shares. */
export interface SupervisionHost {
  agent: Agent;
  config: HostConfig;
  clock: Clock;
  logger: Logger;
  /** How long one start may take; default `core.plugins.start_timeout_ms`. */
  startTimeoutMs?: number;
  crashPolicy?: CrashPolicyOptions;
  /** True once the registry stops everything: a crash then restarts nothing. */
  closed(): boolean;
}

/** One plugin's lifecycle: start, stop, crash and restart, and what `list` shows of it. */
export class SupervisedPlugin {
  readonly name: string;
  kind: PluginKind;
  version?: string;
  /** Its folder under <home>/plugins (installed plugins). */
  dir?: string;
  sha256?: string;
  /** Its plugin.json, once read (installed plugins). */
  manifest?: Manifest;
  state: PluginInfo["state"] = "stopped";
  error?: string;
  readonly policy: CrashPolicy;
  #restarts = 0;
  #lastCrash?: { at: number; reason: string };
  #host: SupervisionHost;
  #make: () => Promise<LoadedPlugin>;
  #loaded?: LoadedPlugin;
  #detach?: () => void;
  #restart?: TimerHandle;

  constructor(
    name: string,
    options: { kind: PluginKind; make: () => Promise<LoadedPlugin>; host: SupervisionHost },
  ) {
    this.name = name;
    this.kind = options.kind;
    this.#make = options.make;
    this.#host = options.host;
    this.policy = new CrashPolicy(options.host.crashPolicy);
  }

  /** Load and start it with a fresh SDK; resolves false (state "failed") when that fails. */
  async start(): Promise<boolean> {
    const host = this.#host;
    const logger = host.logger.child({ plugin: this.name });
    const { sdk, detach } = createPluginSdk(this.name, {
      agent: host.agent,
      config: host.config,
      logger,
      restricted: this.kind !== "builtin",
    });
    try {
      const loaded = await this.#make();
      if (loaded.native) {
        logger.warn("Plugin runs outside the sandbox (core.plugins.allow_native is true)", {
          why: loaded.native,
        });
      }
      this.#loaded = loaded;
      this.#detach = detach;
      await startWithin(loaded.plugin, sdk, {
        ms: host.startTimeoutMs ?? host.config.get<number>(PLUGIN_HOST_KEYS.startTimeoutMs),
        clock: host.clock,
        setting: PLUGIN_HOST_KEYS.startTimeoutMs,
      });
      this.state = "running";
      this.error = undefined;
      logger.info("Plugin started", { kind: this.kind, version: this.version });
      return true;
    } catch (error) {
      detach();
      this.#detach = undefined;
      this.#loaded = undefined;
      this.state = "failed";
      this.error = errorMessage(error);
      logger.error("Plugin failed to start", { error: this.error });
      return false;
    }
  }

  /** Stop it (a pending restart included) and detach its registrations. Never throws. */
  async stop(): Promise<void> {
    this.#restart?.cancel();
    this.#restart = undefined;
    const loaded = this.#loaded;
    this.#loaded = undefined;
    if (loaded) {
      try {
        await loaded.plugin.stop();
      } catch (error) {
        this.#host.logger.error("Plugin failed to stop", {
          plugin: this.name,
          error: errorMessage(error),
        });
      }
    }
    this.#detach?.();
    this.#detach = undefined;
    if (this.state === "running" || this.state === "restarting") this.state = "stopped";
  }

  /**
   * `plugin` crashed for `reason` (null: a restart attempt failed to start). Each call is one
   * crash; a report about an instance that is no longer this plugin's is ignored.
   */
  crashed(plugin: Plugin | null, reason: string): void {
    if (this.#host.closed() || (plugin !== null && this.#loaded?.plugin !== plugin)) return;
    this.#restart?.cancel(); // one restart timer at a time
    this.#restart = undefined;
    this.#loaded = undefined;
    this.#detach?.();
    this.#detach = undefined;
    const { agent, clock, logger } = this.#host;
    this.#lastCrash = { at: clock.now(), reason };
    agent.events.publish({ type: "plugin_crashed", plugin: this.name, reason });
    const decision = this.policy.crashed(clock.monotonic());
    if (!decision.restart) {
      this.state = "failed";
      this.error = `Gave up after ${decision.crashes} crashes in 5 minutes (last: ${reason})`;
      logger.error("Plugin crashed; giving up", { plugin: this.name, reason });
      agent.kernelNotice(
        "plugin_gave_up",
        this.name,
        `Plugin "${this.name}" crashed ${decision.crashes} times in 5 minutes and will not be ` +
          `restarted (last: ${reason}); its tools are gone until "homeagent plugin reload ` +
          `${this.name}". Tell the owner.`,
      );
      return;
    }
    this.state = "restarting";
    this.error = reason;
    logger.warn("Plugin crashed; restarting", {
      plugin: this.name,
      reason,
      delayMs: decision.delayMs,
    });
    this.#restart = clock.setTimer(decision.delayMs, () => {
      this.#restart = undefined;
      this.#restarts++;
      void this.start().then((ok) => {
        if (!ok) this.crashed(null, this.error ?? "start failed");
      });
    });
  }

  /** What `plugin list` shows: state, process, and what it registered. */
  info(): PluginInfo {
    const { agent, config } = this.#host;
    const m = this.manifest;
    return {
      name: this.name,
      kind: this.kind,
      version: this.version,
      state: this.state,
      error: this.error,
      crashes: this.policy.recent,
      restarts: this.#restarts,
      ...(this.#lastCrash ? { lastCrash: this.#lastCrash } : {}),
      ...(m?.description ? { description: m.description } : {}),
      ...(m ? { permissions: { capabilities: m.capabilities, ...m.permissions } } : {}),
      pid: this.#loaded?.process?.(),
      memoryBytes: this.#loaded?.memory?.(),
      sha256: this.sha256,
      tools: agent.tools.list().filter((t) => t.plugin === this.name).map((t) => t.name),
      channels: agent.outputs.list().filter((c) => c.plugin === this.name).map((c) => c.name),
      settings: (config.list?.(`plugin.${this.name}.`) ?? [])
        .map((e) => ({ key: e.key, value: e.value })),
    };
  }
}
