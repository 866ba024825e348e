/**
 * The plugin Registry (ARCHITECTURE.md "Plugin System"): built-in factories first, then the
 * installed folders under <home>/plugins dispatched by manifest kind to the subprocess, Lua or
 * SKILL channel. Owns each plugin's SDK and detach, crash restarts with backoff, enable and
 * disable (persisted as `core.plugins.<name>.enabled`), hot reload, install and uninstall.
 */
import { join } from "node:path";
import {
  type Agent,
  checkPluginName,
  type Clock,
  errorMessage,
  type Logger,
  type Plugin,
  PluginError,
} from "../../core/mod.ts";
import type { PluginServices } from "./api.ts";
import { HMAP_MAX_BYTES, readHmap } from "./hmap.ts";
import { placeHmap, recoverInstalls, removeInstalled } from "./install.ts";
import { PLUGIN_NAME, readManifest } from "./manifest.ts";
import type { ChannelLimits } from "./limits.ts";
import { type PermissionReview, reviewManifest } from "./review.ts";
import {
  createSettingsDefiner,
  type HostConfig,
  PLUGIN_HOST_KEYS,
  type SettingsDefiner,
} from "./settings.ts";
import { type PluginInfo, type PluginKind, SupervisedPlugin } from "./supervised.ts";
import { SkillLibrary } from "./skill.ts";
import { createSkillsBuiltin } from "./skills_tool.ts";
import { createPluginManagerBuiltin } from "./builtin_tools.ts";
import { type LoadedPlugin, loadInstalled } from "./loader.ts";

export type { PluginInfo, PluginKind } from "./supervised.ts";

/** A factory of a built-in plugin. */
export type PluginFactory = () => Plugin;

/** Options of a built-in factory. */
export interface FactoryOptions {
  /** The owner may disable it (`core.plugins.<name>.enabled`); the kernel's own ones may not. */
  optional?: boolean;
}

/** Options of a PluginRegistry. */
export interface PluginRegistryOptions {
  agent: Agent;
  config: HostConfig;
  clock: Clock;
  logger: Logger;
  /** <home>/plugins. */
  pluginsDir: string;
  kernelVersion: string;
  services?: PluginServices;
  /** The daemon's environment: declared variables are passed to plugins. */
  env?: Record<string, string | undefined>;
  callTimeoutMs?: number;
  /** Bounds of each subprocess plugin's channels (docs/security.md "Plugin channel limits"). */
  limits?: Partial<ChannelLimits>;
  graceMs?: number;
  backoffMs?: number[];
  crashWindowMs?: number;
  maxCrashes?: number;
  /** Import map giving `@homeagent/plugin-sdk` to TypeScript plugins (pluginRuntime). */
  importMap?: string;
  /**
   * The deno that runs Deno plugins (pluginRuntime); null when there is none (a compiled
   * homeagent on a machine without deno: such plugins fail to start, saying so). Default
   * Deno.execPath().
   */
  denoPath?: string | null;
  /** wasmoon's glue.wasm for Lua plugins; default the package's file. */
  luaWasmPath?: string;
  /** Lua budgets; default the `core.plugins.lua.*` settings. */
  luaInstructionLimit?: number;
  luaTimeLimitMs?: number;
  luaMemoryLimitBytes?: number;
  /** How long one plugin's start may take; default `core.plugins.start_timeout_ms`. */
  startTimeoutMs?: number;
  /**
   * Fail-back boot: start the built-ins only; installed plugins are listed as disabled (with
   * FAILBACK_ERROR) until the owner enables one or HomeAgent restarts normally.
   */
  failback?: boolean;
}

/** Why an installed plugin is not running in fail-back boot. */
export const FAILBACK_ERROR =
  "Not started: fail-back boot (the agent kept crashing); it starts when HomeAgent restarts";

/** Loads, supervises and manages every plugin of one kernel. */
export class PluginRegistry {
  readonly skills = new SkillLibrary();
  #options: PluginRegistryOptions;
  #entries = new Map<string, SupervisedPlugin>();
  #factories = new Map<string, PluginFactory>();
  #optional = new Set<string>();
  #settings: SettingsDefiner;
  #closed = false;

  constructor(options: PluginRegistryOptions) {
    this.#options = options;
    this.#settings = createSettingsDefiner(options.config);
    this.registerFactory("skills", () => createSkillsBuiltin(this.skills));
    this.registerFactory("pluginmgr", () => createPluginManagerBuiltin(this));
  }

  /** Add a built-in factory; its plugin starts at load(). */
  registerFactory(name: string, factory: PluginFactory, options: FactoryOptions = {}): void {
    if (this.#factories.has(name)) throw new TypeError(`Plugin factory "${name}" already exists`);
    this.#factories.set(name, factory);
    if (options.optional) this.#optional.add(name);
  }

  /**
   * Start every built-in, then every installed plugin that is enabled. Never throws for one
   * plugin. Returns nothing: a list() here read every plugin's settings (their defaults checked
   * by zod) while the first chat was being answered, for no one.
   */
  async load(): Promise<void> {
    for (const [name, factory] of this.#factories) {
      if (this.#entries.has(name)) continue;
      const entry = this.#entry(name, "builtin", () => Promise.resolve({ plugin: factory() }));
      if (this.#optional.has(name) && !this.#enabled(name)) entry.state = "disabled";
      else await entry.start();
    }
    await recoverInstalls(this.#options.pluginsDir, this.#options.logger);
    const names: string[] = [];
    try {
      for await (const item of Deno.readDir(this.#options.pluginsDir)) {
        if (item.isDirectory && PLUGIN_NAME.test(item.name)) names.push(item.name);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    await Promise.all(names.sort().filter((n) => !this.#entries.has(n)).map((n) => this.#add(n)));
  }

  /** Load (or reload) the installed folder `name` and start it when enabled. */
  async #add(name: string): Promise<PluginInfo> {
    if (this.#factories.has(name)) {
      throw new PluginError(name, `Plugin name "${name}" is reserved by a built-in plugin`);
    }
    const dir = join(this.#options.pluginsDir, name);
    const entry = this.#entry(name, "subprocess", () => this.#loadDir(entry, dir));
    entry.dir = dir;
    entry.sha256 = await readInstallRecord(dir);
    const failback = this.#options.failback && this.#enabled(name);
    if (!this.#enabled(name) || failback) {
      entry.state = "disabled";
      if (failback) entry.error = FAILBACK_ERROR;
      // Kind and version for `list`; a folder that does not load says why there, and in the
      // log, before anyone enables it.
      await this.#loadDir(entry, dir).catch((error) => {
        entry.error ??= `Its folder does not load: ${errorMessage(error)}`;
        this.#options.logger.warn("A disabled plugin's folder does not load", {
          plugin: name,
          error: errorMessage(error),
        });
      });
      return entry.info();
    }
    await entry.start();
    return entry.info();
  }

  async #loadDir(entry: SupervisedPlugin, dir: string): Promise<LoadedPlugin> {
    const o = this.#options;
    // Read apart from loading, so a plugin that cannot start still shows what it asks for.
    entry.manifest = await readManifest(dir).catch(() => undefined);
    const loaded = await loadInstalled(dir, entry.name, {
      clock: o.clock,
      kernelVersion: o.kernelVersion,
      pluginsDir: o.pluginsDir,
      services: o.services,
      settings: this.#settings,
      env: o.env,
      importMap: o.importMap,
      denoPath: o.denoPath,
      luaWasmPath: o.luaWasmPath,
      callTimeoutMs: o.callTimeoutMs,
      limits: o.limits,
      graceMs: o.graceMs,
      luaInstructionLimit: o.luaInstructionLimit ??
        o.config.get<number>(PLUGIN_HOST_KEYS.luaInstructionLimit),
      luaTimeLimitMs: o.luaTimeLimitMs ?? o.config.get<number>(PLUGIN_HOST_KEYS.luaTimeLimitMs),
      luaMemoryLimitBytes: o.luaMemoryLimitBytes ??
        o.config.get<number>(PLUGIN_HOST_KEYS.luaMemoryLimitMb) * 1024 * 1024,
      skills: this.skills,
      onCrash: (plugin, reason) => entry.crashed(plugin, reason),
      allowNative: o.config.get<boolean>("core.plugins.allow_native"),
    });
    entry.kind = loaded.kind ?? entry.kind;
    entry.version = loaded.version;
    return loaded;
  }

  #entry(name: string, kind: PluginKind, make: () => Promise<LoadedPlugin>): SupervisedPlugin {
    const o = this.#options;
    const entry = new SupervisedPlugin(name, {
      kind,
      make,
      host: {
        agent: o.agent,
        config: o.config,
        clock: o.clock,
        logger: o.logger,
        startTimeoutMs: o.startTimeoutMs,
        crashPolicy: {
          backoffMs: o.backoffMs,
          windowMs: o.crashWindowMs,
          maxCrashes: o.maxCrashes,
        },
        closed: () => this.#closed,
      },
    });
    this.#entries.set(name, entry);
    return entry;
  }

  #enabled(name: string): boolean {
    return this.#options.config.get<boolean>(`core.plugins.${name}.enabled`);
  }

  /** The enabled plugins a fail-back boot left out (FAILBACK_ERROR), by name. */
  leftOut(): string[] {
    return [...this.#entries.values()].filter((e) => e.error === FAILBACK_ERROR).map((e) => e.name);
  }

  /** Every plugin and its state. */
  list(): PluginInfo[] {
    return [...this.#entries.values()].map((e) => this.#info(e));
  }

  #info(entry: SupervisedPlugin): PluginInfo {
    const info = entry.info();
    return this.#optional.has(entry.name) ? { ...info, optional: true } : info;
  }

  /** Every output channel (for `output_list_channels`). */
  channels(): { name: string; caps: number; description: string }[] {
    return this.#options.agent.outputs.list().map((c) => ({
      name: c.name,
      caps: c.caps,
      description: c.description,
    }));
  }

  /** One plugin's info. Throws PluginError when unknown. */
  info(name: string): PluginInfo {
    return this.#info(this.#get(name));
  }

  #get(name: string): SupervisedPlugin {
    const entry = this.#entries.get(checkPluginName(name));
    if (!entry) throw new PluginError(name, `No plugin named "${name}"`);
    return entry;
  }

  /** Swap the process (or VM) of an installed plugin and re-register, without a kernel restart. */
  async reload(name: string): Promise<PluginInfo> {
    const entry = this.#get(name);
    if (entry.kind === "builtin") {
      throw new PluginError(name, `Built-in plugin "${name}" cannot be reloaded`);
    }
    await entry.stop();
    entry.policy.reset();
    if (!this.#enabled(name)) {
      entry.state = "disabled";
      return entry.info();
    }
    await entry.start();
    return entry.info();
  }

  /** Persist enabled and start the plugin. */
  async enable(name: string): Promise<PluginInfo> {
    const entry = this.#external(name, "enabled");
    this.#options.config.set(`core.plugins.${name}.enabled`, true);
    if (entry.state !== "running") {
      entry.policy.reset();
      await entry.start();
    }
    return entry.info();
  }

  /** Persist disabled and stop the plugin; its registrations go with it. */
  async disable(name: string): Promise<PluginInfo> {
    const entry = this.#external(name, "disabled");
    this.#options.config.set(`core.plugins.${name}.enabled`, false);
    await entry.stop();
    entry.state = "disabled";
    return entry.info();
  }

  #external(name: string, verb: string): SupervisedPlugin {
    const entry = this.#get(name);
    if (entry.kind === "builtin" && !(verb.endsWith("abled") && this.#optional.has(name))) {
      throw new PluginError(name, `Built-in plugin "${name}" cannot be ${verb}`);
    }
    return entry;
  }

  /** Verify a .hmap and say what it asks for, installing nothing. */
  async review(bytes: Uint8Array): Promise<PermissionReview> {
    const pkg = await readHmap(bytes, { maxTotalBytes: HMAP_MAX_BYTES });
    return reviewManifest(pkg.manifest, pkg.sha256);
  }

  /** Verify and install a .hmap (replacing an installed version, keeping its data/), then start it. */
  async install(bytes: Uint8Array): Promise<PluginInfo> {
    const pkg = await readHmap(bytes, { maxTotalBytes: HMAP_MAX_BYTES });
    const name = pkg.manifest.name;
    if (this.#factories.has(name)) {
      throw new PluginError(name, `Cannot install "${name}": the name is a built-in plugin's`);
    }
    const old = this.#entries.get(name);
    if (old) await old.stop();
    this.#entries.delete(name);
    await placeHmap(this.#options.pluginsDir, pkg, this.#options.clock.now());
    this.#options.logger.info("Plugin installed", { plugin: name, sha256: pkg.sha256 });
    return await this.#add(name);
  }

  /** Stop the plugin, remove its registrations and delete its folder (data included). */
  async uninstall(name: string): Promise<void> {
    const entry = this.#external(name, "uninstalled");
    await entry.stop();
    this.#entries.delete(name);
    if (entry.dir) await removeInstalled(this.#options.pluginsDir, name);
    this.#options.logger.info("Plugin uninstalled", { plugin: name });
  }

  /** Stop every plugin, last loaded first. */
  async stopAll(): Promise<void> {
    this.#closed = true;
    for (const entry of [...this.#entries.values()].reverse()) await entry.stop();
  }
}

async function readInstallRecord(dir: string): Promise<string | undefined> {
  try {
    const record = JSON.parse(await Deno.readTextFile(join(dir, ".install.json")));
    return typeof record.sha256 === "string" ? record.sha256 : undefined;
  } catch {
    return undefined;
  }
}
