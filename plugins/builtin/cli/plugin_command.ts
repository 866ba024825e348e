/**
 * `plugin list | install FILE.hmap|npm:PACKAGE [--yes] | uninstall|reload|enable|disable NAME`:
 * through the running daemon when there is one (changes apply at once); else directly on the
 * home's files (they apply at the next start). An install first shows what the package asks for.
 */
import {
  checkPluginName,
  type Clock,
  HomeAgentError,
  type Logger,
  UsageError,
} from "../../../core/mod.ts";
import { readHmap } from "../../host/hmap.ts";
import { type OfflineHome, pluginOffline } from "../../host/offline.ts";
import { reviewManifest } from "../../host/review.ts";
import { reviewSkillPackage } from "../../host/skills_home.ts";
import { openHomeSkills } from "../clawhubadapter/home_skills.ts";
import type { DaemonTarget } from "./client.ts";
import {
  type CommandOutput,
  confirmInstall,
  type ConfirmIo,
  pluginCommandOnline,
} from "./commands.ts";
import { PLUGIN_ACTIONS, type PluginAction } from "./protocol.ts";

/** What `plugin` needs from the process. */
export interface PluginCommandIo {
  daemon: DaemonTarget;
  /** JSON results (stdout). */
  out: CommandOutput;
  /** The install review and "Not installed." (stderr: stdout stays JSON). */
  err: CommandOutput;
  /** `--yes`. */
  yes: boolean;
  /** Whether a person can answer on stdin; default Deno.stdin.isTerminal(). */
  isTerminal?: boolean;
  /** Ask one question; default prompt(). */
  ask?: (question: string) => string | null;
  /** The home's config (no daemon runs, or a skill package is fetched); disposing closes it. */
  openHome(): Promise<
    {
      paths: { plugins: string; skills: string };
      registry: OfflineHome["config"];
      clock: Clock;
      logger: Logger;
    } & Disposable
  >;
}

/** Run `plugin ACTION [ARG]`; resolves with the exit code. Throws UsageError, NameError. */
export async function runPluginCommand(
  args: readonly string[],
  io: PluginCommandIo,
): Promise<number> {
  const [action, arg] = args;
  if (!PLUGIN_ACTIONS.includes(action as PluginAction) || (action !== "list" && !arg)) {
    throw new UsageError(
      `Usage: ${io.daemon.command} plugin list | install FILE.hmap|npm:PACKAGE [--yes] | ` +
        `uninstall|reload|enable|disable NAME`,
    );
  }
  if (action === "install" && arg!.startsWith("npm:")) return await installSkills(arg!, io);
  if (action !== "list" && action !== "install") checkPluginName(arg!);
  const path = action === "install" ? await packagePath(arg!) : undefined;
  if (path && !await confirmPackage(path, io)) {
    io.err.print("Not installed.");
    return 1;
  }
  const request = { action: action as PluginAction, name: arg, path };
  const online = await pluginCommandOnline(io.daemon, request, io.out);
  if (online !== undefined) return online;
  using home = await io.openHome();
  const offline = { pluginsDir: home.paths.plugins, config: home.registry, now: Date.now };
  const result = await pluginOffline(offline, action!, path ?? arg);
  if (result !== undefined) io.out.print(JSON.stringify(result, null, 2));
  return 0;
}

/** The absolute path of the package to install; one line when it is not there or a folder. */
async function packagePath(arg: string): Promise<string> {
  let path: string;
  try {
    path = await Deno.realPath(arg);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new HomeAgentError(
      "not_found",
      `Cannot install "${arg}": there is no such file; give a plugin package (FILE.hmap) or ` +
        "npm:PACKAGE",
    );
  }
  if ((await Deno.stat(path)).isDirectory) {
    throw new HomeAgentError(
      "not_a_package",
      `Cannot install "${arg}": it is a folder, not a package; zip it first ` +
        "(cd FOLDER && zip -r ../NAME.hmap .) and install the .hmap (docs/PLUGIN_GUIDE.md)",
    );
  }
  return path;
}

/**
 * `plugin install npm:<package>`: fetched and verified here, reviewed (stderr) and confirmed,
 * then installed by the running daemon pinned to that integrity, or into <home>/skills.
 */
async function installSkills(spec: string, io: PluginCommandIo): Promise<number> {
  using opened = await io.openHome();
  const { installer } = await openHomeSkills({
    dir: opened.paths.skills,
    config: opened.registry,
    clock: opened.clock,
    logger: opened.logger,
    load: false,
  });
  const pkg = await installer.fetch(spec);
  const review = { name: pkg.source, lines: await reviewSkillPackage(pkg) };
  if (!await confirmInstall(review, confirmIo(io))) {
    io.err.print("Not installed.");
    return 1;
  }
  const request = { action: "install" as const, source: pkg.source, integrity: pkg.integrity };
  const online = await pluginCommandOnline(io.daemon, request, io.out);
  if (online !== undefined) return online;
  const installed = await installer.install(pkg.source, { integrity: pkg.integrity });
  io.out.print(JSON.stringify(installed, null, 2));
  return 0;
}

/** List what the package asks for and ask (a terminal) or take --yes. */
async function confirmPackage(path: string, io: PluginCommandIo): Promise<boolean> {
  const pkg = await readHmap(await Deno.readFile(path));
  return await confirmInstall(reviewManifest(pkg.manifest, pkg.sha256), confirmIo(io));
}

function confirmIo(io: PluginCommandIo): ConfirmIo {
  return {
    yes: io.yes,
    isTerminal: io.isTerminal ?? Deno.stdin.isTerminal(),
    ask: io.ask ?? ((question) => prompt(question)),
    print: (line) => io.err.print(line),
  };
}
