/**
 * What Deno plugins run on, however HomeAgent itself is installed (docs/operations.md): the
 * deno binary (this process's own unless it is a compiled homeagent, which cannot run
 * `deno run`), and the import map that gives `@homeagent/plugin-sdk` (the SDK's files in the
 * source tree, or the SDK carried inside the bundle, written out to the home's run/ folder).
 */
import { basename, delimiter, join } from "node:path";
import { defaultImportMap } from "./permissions.ts";
import { sdkBundle } from "./bundled.ts";

/** The plugin runtime for PluginRegistry's `importMap` and `denoPath`. */
export interface PluginRuntime {
  importMap?: string;
  /** null: no deno on this machine (Deno plugins fail to start, saying how to fix it). */
  denoPath: string | null;
}

/** Options of pluginRuntime. */
export interface PluginRuntimeOptions {
  /** The home's run/ folder: where a bundle writes the SDK out. */
  runDir: string;
  /** Deno.execPath(): deno, or the compiled homeagent. */
  execPath: string;
  /** The daemon's environment (HOMEAGENT_DENO, PATH). */
  env: Record<string, string | undefined>;
  /** Whether `file` is an executable file; default a stat. */
  isExecutable?: (file: string) => boolean;
  /** The bundled SDK text; default the one this program carries, if any. */
  sdk?: string;
}

/** Find the deno for plugins and make the SDK importable by them. */
export async function pluginRuntime(options: PluginRuntimeOptions): Promise<PluginRuntime> {
  const sdk = options.sdk ?? sdkBundle();
  return {
    importMap: sdk === undefined ? defaultImportMap() : await writeSdk(options.runDir, sdk),
    denoPath: findDeno(options),
  };
}

/**
 * This process when it is deno; else `$HOMEAGENT_DENO`; else `deno` on PATH; else null. A
 * compiled homeagent is never used: its permissions are fixed when it is compiled, so it could
 * not give each plugin only the permissions its manifest declares (docs/security.md).
 */
function findDeno(options: PluginRuntimeOptions): string | null {
  if (/^deno(\.exe)?$/i.test(basename(options.execPath))) return options.execPath;
  const isExecutable = options.isExecutable ?? executable;
  const named = options.env.HOMEAGENT_DENO;
  if (named) return isExecutable(named) ? named : null;
  for (const dir of (options.env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && isExecutable(join(dir, "deno"))) return join(dir, "deno");
  }
  return null;
}

function executable(file: string): boolean {
  try {
    const info = Deno.statSync(file);
    return info.isFile && (info.mode === null || (info.mode & 0o111) !== 0);
  } catch {
    return false;
  }
}

/**
 * `<run>/plugin-sdk/mod.js` and its import map, rewritten when they differ from what this
 * program carries. The folder holds nothing else: plugins get read access to it and only it.
 */
async function writeSdk(runDir: string, sdk: string): Promise<string> {
  const dir = join(runDir, "plugin-sdk");
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const map = JSON.stringify({ imports: { "@homeagent/plugin-sdk": "./mod.js" } }) + "\n";
  await writeIfChanged(join(dir, "mod.js"), sdk);
  const importMap = join(dir, "import_map.json");
  await writeIfChanged(importMap, map);
  return importMap;
}

async function writeIfChanged(path: string, text: string): Promise<void> {
  if (await Deno.readTextFile(path).catch(() => undefined) === text) return;
  const temp = `${path}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.writeTextFile(temp, text, { mode: 0o600 });
  await Deno.rename(temp, path);
}
