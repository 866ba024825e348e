/** Turns an installed plugin folder into a Plugin, by manifest kind: subprocess, Lua or SKILL. */
import { type Clock, type Plugin, PluginError } from "../../core/mod.ts";
import type { PluginServices } from "./api.ts";
import type { ChannelLimits } from "./limits.ts";
import { createLuaPlugin, type LuaPlugin } from "./lua.ts";
import { checkPlatform, type Manifest, readManifest, satisfiesMinVersion } from "./manifest.ts";
import {
  checkImports,
  checkLinks,
  dataDirOf,
  insideDir,
  nativeReason,
  pluginCommand,
} from "./permissions.ts";
import type { SettingsDefiner } from "./settings.ts";
import { createSkillPlugin, parseSkill, type SkillLibrary } from "./skill.ts";
import { createSubprocessPlugin } from "./subprocess.ts";

/** A plugin ready to start, with what `list` shows about it. */
export interface LoadedPlugin {
  plugin: Plugin;
  kind?: "subprocess" | "lua" | "skill";
  version?: string;
  /** The child's pid while running (subprocess plugins). */
  process?: () => number | undefined;
  /** Why it runs outside the sandbox (allowed by core.plugins.allow_native), if it does. */
  native?: string;
  /** Bytes its VM holds (Lua plugins). */
  memory?: () => number | undefined;
}

/** Options of loadInstalled. */
export interface LoaderOptions {
  clock: Clock;
  kernelVersion: string;
  pluginsDir: string;
  services?: PluginServices;
  settings: SettingsDefiner;
  env?: Record<string, string | undefined>;
  importMap?: string;
  /** The deno that runs Deno plugins; null when there is none. Default Deno.execPath(). */
  denoPath?: string | null;
  /** wasmoon's glue.wasm for Lua plugins; default the package's file. */
  luaWasmPath?: string;
  callTimeoutMs?: number;
  /** Bounds of a subprocess plugin's channels. */
  limits?: Partial<ChannelLimits>;
  graceMs?: number;
  luaInstructionLimit?: number;
  luaTimeLimitMs?: number;
  luaMemoryLimitBytes?: number;
  skills: SkillLibrary;
  /** A subprocess plugin's child died unasked. */
  onCrash: (plugin: Plugin, reason: string) => void;
  /** Data folder; default <pluginsDir>/<name>/data. */
  dataDir?: string;
  /** Start plugins that run native programs (core.plugins.allow_native); default false. */
  allowNative?: boolean;
}

/** Read and check `dir`'s manifest and build its Plugin. Throws PluginError. */
export async function loadInstalled(
  dir: string,
  name: string,
  options: LoaderOptions,
): Promise<LoadedPlugin> {
  const manifest = await readManifest(dir);
  if (manifest.name !== name) {
    throw new PluginError(
      name,
      `Folder "${name}" holds plugin "${manifest.name}"; names must match`,
    );
  }
  if (!satisfiesMinVersion(options.kernelVersion, manifest.min_version)) {
    throw new PluginError(
      name,
      `Plugin "${name}" needs HomeAgent ${manifest.min_version} or later (running ${options.kernelVersion})`,
    );
  }
  checkPlatform(manifest);
  for (const [key, definition] of Object.entries(manifest.settings)) {
    options.settings.define(name, key, definition);
  }
  const entryPath = insideDir(name, dir, manifest.entry);
  const base = { kind: manifest.kind, version: manifest.version };
  switch (manifest.kind) {
    case "skill": {
      const skill = await parseSkill(await Deno.readTextFile(entryPath), name);
      return { ...base, plugin: createSkillPlugin(name, skill, options.skills) };
    }
    case "lua": {
      const plugin: LuaPlugin = createLuaPlugin({
        manifest,
        source: await Deno.readTextFile(entryPath),
        clock: options.clock,
        services: options.services,
        instructionLimit: options.luaInstructionLimit,
        timeLimitMs: options.luaTimeLimitMs,
        memoryLimitBytes: options.luaMemoryLimitBytes,
        wasmPath: options.luaWasmPath,
        onCrash: (reason) => options.onCrash(plugin, reason),
      });
      return { ...base, plugin, memory: () => plugin.memoryBytes() };
    }
    case "subprocess":
      return { ...base, ...await loadSubprocess(manifest, dir, entryPath, options) };
  }
}

/** A Deno (or, when the owner allows it, native) child: checked before every start. */
async function loadSubprocess(
  manifest: Manifest,
  dir: string,
  entryPath: string,
  options: LoaderOptions,
): Promise<LoadedPlugin> {
  const name = manifest.name;
  const native = nativeReason(manifest);
  if (native && !options.allowNative) {
    throw new PluginError(
      name,
      `Cannot start plugin "${name}": ${native}, which HomeAgent cannot sandbox; set ` +
        `core.plugins.allow_native to true to allow native plugins (docs/security.md)`,
    );
  }
  await Deno.stat(entryPath).catch((error) => {
    throw new PluginError(
      name,
      `Cannot start plugin "${name}": entry "${manifest.entry}" not found`,
      {
        cause: error,
      },
    );
  });
  await checkImports(name, dir);
  const dataDir = options.dataDir ?? dataDirOf(options.pluginsDir, name);
  await Deno.mkdir(dataDir, { recursive: true });
  await checkLinks(name, dir, [dataDir]);
  const command = pluginCommand(manifest, {
    dir,
    dataDir,
    env: options.env,
    importMap: options.importMap,
    denoPath: options.denoPath,
  });
  const plugin = createSubprocessPlugin({
    manifest,
    command,
    dataDir,
    clock: options.clock,
    kernelVersion: options.kernelVersion,
    services: options.services,
    settings: options.settings,
    callTimeoutMs: options.callTimeoutMs,
    limits: options.limits,
    graceMs: options.graceMs,
    onCrash: (reason) => options.onCrash(plugin, reason),
  });
  return { plugin, native, process: () => plugin.process?.pid };
}
