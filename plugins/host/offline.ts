/**
 * `plugin …` with no daemon running: the same changes made directly on the home's files and
 * settings; they apply at the next start. `reload` needs a running daemon.
 */
import { join } from "node:path";
import { HomeAgentError } from "../../core/mod.ts";
import { readHmap } from "./hmap.ts";
import { placeHmap, removeInstalled } from "./install.ts";
import { readManifest } from "./manifest.ts";
import type { HostConfig } from "./settings.ts";

/** What pluginOffline works on. */
export interface OfflineHome {
  /** `<home>/plugins`. */
  pluginsDir: string;
  config: Pick<HostConfig, "get" | "set">;
  /** Install time (ms since the epoch) recorded with a package. */
  now(): number;
}

/** An installed plugin as `plugin list` shows it without a daemon. */
export interface OfflinePlugin {
  name: string;
  kind?: string;
  version?: string;
  state: "stopped" | "disabled";
}

/**
 * Run `plugin ACTION ARG` on the home's files: `list` resolves with the installed plugins,
 * `install` (ARG: the package file) with what was placed, the others with undefined. Throws
 * HomeAgentError "no_daemon" for an action that needs the daemon; ARG is a checked name.
 */
export async function pluginOffline(
  home: OfflineHome,
  action: string,
  arg?: string,
): Promise<unknown> {
  switch (action) {
    case "list":
      return await listInstalled(home);
    case "install": {
      const pkg = await readHmap(await Deno.readFile(arg!));
      await placeHmap(home.pluginsDir, pkg, home.now());
      return { name: pkg.manifest.name, version: pkg.manifest.version, sha256: pkg.sha256 };
    }
    case "uninstall":
      await removeInstalled(home.pluginsDir, arg!);
      return undefined;
    case "enable":
    case "disable":
      home.config.set(`core.plugins.${arg}.enabled`, action === "enable");
      return undefined;
    default:
      throw new HomeAgentError("no_daemon", `"plugin ${action}" needs a running daemon`);
  }
}

async function listInstalled(home: OfflineHome): Promise<OfflinePlugin[]> {
  const list: OfflinePlugin[] = [];
  for await (const entry of Deno.readDir(home.pluginsDir)) {
    if (!entry.isDirectory || entry.name.startsWith(".")) continue;
    // A folder whose manifest cannot be read is still listed: the owner may uninstall it.
    const manifest = await readManifest(join(home.pluginsDir, entry.name)).catch(() => undefined);
    list.push({
      name: entry.name,
      kind: manifest?.kind,
      version: manifest?.version,
      state: home.config.get(`core.plugins.${entry.name}.enabled`) ? "stopped" : "disabled",
    });
  }
  return list;
}
