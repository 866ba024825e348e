/**
 * The command line of a subprocess plugin: a TypeScript/JavaScript entry runs under
 * `deno run --no-prompt --no-config` with exactly the permissions its manifest declares, and
 * its modules are loaded under those permissions too (see BOOT). docs/security.md says why.
 */
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
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

/**
 * The main module of every Deno plugin. Deno reads the modules of a program's start-up graph
 * (static imports and literal `import("…")`, found before anything runs) without checking
 * --allow-read; a module graph imported at run time is checked, every static child included.
 * So the entry is imported from a URL computed at run time (Deno.args), never a literal one,
 * and the plugin's whole graph loads under its own read permissions: a module outside its
 * folder is refused by the runtime, however its import is spelled.
 */
const BOOT = `try {
  await import(Deno.args[0]);
} catch (error) {
  const msg = "The plugin's entry failed: " + (error?.message ?? String(error));
  console.error(JSON.stringify({ level: "error", msg }));
  Deno.exit(1);
}`;

/** The BOOT module as the URL deno runs (a data: URL: nothing on disk to tamper with). */
export const BOOT_URL = `data:application/javascript,${encodeURIComponent(BOOT)}`;

/** Options of pluginCommand. */
export interface PluginCommandOptions {
  /** The plugin's folder (holds plugin.json and the entry). */
  dir: string;
  /** The plugin's data folder (read and write). */
  dataDir: string;
  /** The daemon's environment; only variables the manifest declares are passed on. */
  env?: Record<string, string | undefined>;
  /** The Deno binary; null when there is none (pluginRuntime); default Deno.execPath(). */
  denoPath?: string | null;
  /** Import map giving `@homeagent/plugin-sdk`; omitted when not a local file. */
  importMap?: string;
}

/** Entries Deno runs; anything else is a native executable. */
const SCRIPT = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

/** The import map next to the SDK, when the kernel runs from files (not a bundle). */
export function defaultImportMap(): string | undefined {
  const url = new URL("../sdk/import_map.json", import.meta.url);
  return url.protocol === "file:" ? url.pathname : undefined;
}

/** Whether Deno runs `entry` (by its extension); anything else is a native program. */
export function isDenoEntry(entry: string): boolean {
  return SCRIPT.test(entry);
}

/**
 * Why `manifest`'s plugin would run code the Deno sandbox does not contain, or undefined: a
 * native entry, or `permissions.run` (a program it starts runs with the daemon's rights).
 */
export function nativeReason(manifest: Manifest): string | undefined {
  if (!isDenoEntry(manifest.entry)) return `its entry "${manifest.entry}" is a native program`;
  const run = manifest.permissions.run;
  if (run.length > 0) return `it starts programs (${run.map((p) => `"${p}"`).join(", ")})`;
  return undefined;
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
  if (options.denoPath === null) {
    throw new PluginError(
      name,
      `Cannot start plugin "${name}": it runs on Deno, and this compiled homeagent found no ` +
        `deno to run it with; install Deno 2 (\`npm install -g deno\`, or from deno.com) or ` +
        `set HOMEAGENT_DENO to its path (docs/operations.md)`,
    );
  }
  if (denoDir) env.DENO_DIR = denoDir; // share the module cache: start-up stays fast
  // The SDK's folder (public code) is readable, since the plugin's graph imports it from there.
  const sdk = options.importMap ? [dirname(options.importMap)] : [];
  const read = [dir, dataDir, ...sdk, ...perms.read.map((p) => insideDir(name, dir, p))];
  const write = [dataDir, ...perms.write.map((p) => writable(name, dir, p))];
  const args = ["run", "--no-prompt", "--no-config", "--quiet", "--no-lock", "--no-remote"];
  args.push("--no-npm", "--cached-only");
  if (options.importMap) args.push(`--import-map=${options.importMap}`);
  args.push(`--allow-read=${unique(read).join(",")}`, `--allow-write=${unique(write).join(",")}`);
  if (perms.net.length > 0) args.push(`--allow-net=${perms.net.join(",")}`);
  if (perms.env.length > 0) args.push(`--allow-env=${perms.env.join(",")}`);
  if (perms.run.length > 0) {
    args.push(`--allow-run=${perms.run.map((p) => insideDir(name, dir, p)).join(",")}`);
  }
  args.push(BOOT_URL, pathToFileURL(entry).href);
  return { command: options.denoPath ?? Deno.execPath(), args, cwd: dir, env, sandboxed: true };
}

/**
 * A declared write path. Never the folder itself or its manifest: a plugin that could rewrite
 * plugin.json would grant itself, at its next start, permissions the owner never reviewed.
 */
function writable(name: string, dir: string, path: string): string {
  const full = insideDir(name, dir, path);
  const rel = relative(dir, full);
  if (rel === "" || rel === "plugin.json" || rel === ".install.json") {
    throw new PluginError(
      name,
      `Plugin "${name}": write permission "${path}" would cover its own plugin.json; ` +
        `declare a subfolder instead (its data/ folder is always writable)`,
    );
  }
  return full;
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

async function* walkScripts(dir: string, skip = join(dir, "data")): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && path !== skip) yield* walkScripts(path, skip);
    else if (entry.isFile && SCRIPT.test(entry.name)) yield path;
  }
}

/**
 * Refuse a symbolic link under `dir` (or the extra folders, e.g. a data folder kept elsewhere)
 * that leads outside `dir`, or nowhere. Deno checks permissions on the path as written, not on
 * where a link leads, so such a link would open files outside to both the module loader and
 * Deno.readFile. A sandboxed plugin cannot make one (Deno.symlink needs unscoped read and
 * write); the owner or a native helper could, so this runs before every start.
 */
export async function checkLinks(name: string, dir: string, extra: string[] = []): Promise<void> {
  const root = await Deno.realPath(dir);
  for (const top of [dir, ...extra]) {
    for await (const link of walkLinks(top)) {
      const target = await Deno.realPath(link).catch(() => undefined);
      const rel = target === undefined ? ".." : relative(root, target);
      if (rel.startsWith("..") || isAbsolute(rel)) {
        throw new PluginError(
          name,
          `Cannot start plugin "${name}": "${relative(dir, link)}" is a symbolic link that leads ` +
            `outside its folder (to "${target ?? "nowhere"}"); remove it`,
        );
      }
    }
  }
}

async function* walkLinks(dir: string): AsyncGenerator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isSymlink) yield path;
    else if (entry.isDirectory) yield* walkLinks(path);
  }
}
