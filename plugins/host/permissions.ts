/**
 * The command line of a subprocess plugin: a TypeScript/JavaScript entry runs under
 * `deno run --no-prompt --no-config` with exactly the permissions its manifest declares.
 */
import { isAbsolute, join, relative, resolve } from "node:path";
import { PluginError } from "../../core/mod.ts";
import type { Manifest } from "./manifest.ts";

/** A resolved command: what Deno.Command runs. */
export interface PluginCommand {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** False for a native executable: the OS, not Deno, decides what it may do. */
  sandboxed: boolean;
}

/** Options of pluginCommand. */
export interface PluginCommandOptions {
  /** The plugin's folder (holds plugin.json and the entry). */
  dir: string;
  /** The plugin's data folder (read and write). */
  dataDir: string;
  /** The daemon's environment; only variables the manifest declares are passed on. */
  env?: Record<string, string | undefined>;
  /** The Deno binary; default Deno.execPath(). */
  denoPath?: string;
  /** Import map giving `@homeagent/plugin-sdk`; omitted when not a local file. */
  importMap?: string;
}

const SCRIPT = /\.(ts|js|mjs|mts)$/;

/** The import map next to the SDK, when the kernel runs from files (not a bundle). */
export function defaultImportMap(): string | undefined {
  const url = new URL("../sdk/import_map.json", import.meta.url);
  return url.protocol === "file:" ? url.pathname : undefined;
}

/** Resolve `path` (relative to `dir`) and refuse one that leaves `dir`. */
export function insideDir(plugin: string, dir: string, path: string): string {
  const full = resolve(dir, path);
  const rel = relative(dir, full);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw new PluginError(plugin, `Plugin "${plugin}": path "${path}" leaves its folder`);
  }
  return full;
}

/** Build the command that runs `manifest`'s entry with only the declared permissions. */
export function pluginCommand(manifest: Manifest, options: PluginCommandOptions): PluginCommand {
  const { dir, dataDir } = options;
  const name = manifest.name;
  const entry = insideDir(name, dir, manifest.entry);
  const perms = manifest.permissions;
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const key of perms.env) {
    const value = options.env?.[key];
    if (value !== undefined) env[key] = value;
  }
  const denoDir = options.env?.DENO_DIR;
  if (!SCRIPT.test(entry)) {
    return { command: entry, args: [], cwd: dir, env, sandboxed: false };
  }
  if (denoDir) env.DENO_DIR = denoDir; // share the module cache: start-up stays fast
  const read = [dir, dataDir, ...perms.read.map((p) => insideDir(name, dir, p))];
  const write = [dataDir, ...perms.write.map((p) => insideDir(name, dir, p))];
  const args = ["run", "--no-prompt", "--no-config", "--quiet", "--no-lock", "--no-remote"];
  args.push("--no-npm");
  if (options.importMap) args.push(`--import-map=${options.importMap}`);
  args.push(`--allow-read=${unique(read).join(",")}`, `--allow-write=${unique(write).join(",")}`);
  if (perms.net.length > 0) args.push(`--allow-net=${perms.net.join(",")}`);
  if (perms.env.length > 0) args.push(`--allow-env=${perms.env.join(",")}`);
  if (perms.run.length > 0) {
    args.push(`--allow-run=${perms.run.map((p) => insideDir(name, dir, p)).join(",")}`);
  }
  args.push(entry);
  return { command: options.denoPath ?? Deno.execPath(), args, cwd: dir, env, sandboxed: true };
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}

/** The data folder of plugin `name` under a plugins root. */
export function dataDirOf(pluginsRoot: string, name: string): string {
  return join(pluginsRoot, name, "data");
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)(["'`])([^"'`]+)\1/g;

/**
 * Refuse statically written imports that leave the plugin's folder. Deno loads such modules
 * without checking --allow-read (a computed import() is checked), so a plugin could otherwise
 * import a JSON file from anywhere. Bare `@homeagent/plugin-sdk` is the one allowed name.
 */
export async function checkImports(name: string, dir: string): Promise<void> {
  for await (const file of walkScripts(dir)) {
    const text = await Deno.readTextFile(file);
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[2]!;
      if (!leaves(dir, file, specifier)) continue;
      throw new PluginError(
        name,
        `Plugin "${name}": "${relative(dir, file)}" imports "${specifier}", outside its folder; ` +
          `plugins must be self-contained (vendor or bundle dependencies)`,
      );
    }
  }
}

/** A specifier Deno would load from outside `dir` (bare names need an import map: refused by Deno). */
function leaves(dir: string, file: string, specifier: string): boolean {
  if (specifier.startsWith("/") || specifier.startsWith("file:")) return true;
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return false;
  const rel = relative(dir, resolve(file, "..", specifier));
  return rel.startsWith("..") || isAbsolute(rel);
}

async function* walkScripts(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && entry.name !== "data") yield* walkScripts(path);
    else if (entry.isFile && SCRIPT.test(entry.name)) yield path;
  }
}
