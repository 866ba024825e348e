/** `service install [--user] [--port P] [--host H] | uninstall [--user]` (docs/operations.md). */
import { UsageError } from "../../../core/mod.ts";
import type { CommandOutput } from "./commands.ts";
import { processLaunchFacts } from "./command_name.ts";
import {
  installService,
  serviceCommand,
  type ServiceTarget,
  serviceTarget,
  systemdVersion,
  uninstallService,
} from "./service.ts";

/** What `service` needs from the process. */
export interface ServiceCommandIo {
  /** The home as resolved, and whether it was named (`--home`, `$HOMEAGENT_HOME`). */
  home: string;
  homeNamed: boolean;
  env: Record<string, string | undefined>;
  flags: { user?: boolean; host?: string; port?: string };
  out: CommandOutput;
  /** How the owner runs the command line, for the usage line. */
  command: string;
  /** The config of the home at `root` (a user unit serves the port its home is set to). */
  openHome(root: string): Promise<{ registry: { get<T>(key: string): T } } & Disposable>;
}

/** Run `service ACTION`; resolves with the exit code. Throws UsageError. */
export async function runServiceCommand(
  args: readonly string[],
  io: ServiceCommandIo,
): Promise<number> {
  const [action] = args;
  if (args.length !== 1 || (action !== "install" && action !== "uninstall")) {
    throw new UsageError(
      `Usage: ${io.command} service install [--user] [--port P] [--host H] | uninstall [--user]`,
    );
  }
  const target = await serviceTarget({
    user: io.flags.user ?? false,
    home: io.home,
    homeNamed: io.homeNamed,
    env: io.env,
    uid: Deno.build.os === "windows" ? null : Deno.uid(),
  });
  const result = action === "uninstall"
    ? await uninstallService(target)
    : await installService(target, {
      command: serviceCommand(processLaunchFacts()),
      host: io.flags.host,
      port: await servicePort(target, io),
      systemd: await systemdVersion(),
    });
  const print = (line: string) => io.out.print(line);
  print(`${action === "install" ? "Wrote" : "Removed"} ${result.unitFile}`);
  if (action === "install") {
    const state = result.envCreated ? "created, mode 0600" : "kept as it was, mode 0600";
    print(`API keys go in ${result.envFile} (${state})`);
  } else print(`${result.envFile} is kept: it holds your keys`);
  print(action === "install" ? "Start it now and at every boot:" : "Stop what still runs:");
  for (const line of result.next) print(`  ${line}`);
  return 0;
}

/** The unit's port: --port, else the home's core.web.port (a user unit; root opens no home). */
async function servicePort(target: ServiceTarget, io: ServiceCommandIo): Promise<number> {
  const flag = io.flags.port;
  if (flag !== undefined) {
    const port = Number(flag);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new UsageError(`Invalid --port "${flag}": expected an integer 1-65535`);
    }
    return port;
  }
  if (target.scope === "system") return 7800;
  using home = await io.openHome(target.home);
  return home.registry.get<number>("core.web.port");
}
