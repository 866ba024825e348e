/**
 * `backup FILE` and `restore FILE` (DESIGN.md §4; also `memory backup|restore FILE`): the
 * command lines over memory/backup/. A backup is taken while the daemon runs; a restore needs
 * it stopped, since it replaces the files the daemon has open.
 */
import { HomeAgentError, UsageError } from "../../core/mod.ts";
import { homePaths, pathExists } from "../home.ts";
import { backupHome } from "../backup/backup.ts";
import { restoreHome } from "../backup/restore.ts";
import { socketAnswers } from "./model.ts";

/** What the backup commands need from the process. */
export interface BackupCommandIo {
  home: string;
  /** How the owner runs the command line, for the usage lines. */
  command: string;
  out: { print(line: string): void };
  now?: () => number;
}

/** Run `backup FILE` or `restore FILE`; prints the JSON report. Throws UsageError. */
export async function runBackupCommand(
  action: "backup" | "restore",
  args: readonly string[],
  io: BackupCommandIo,
): Promise<number> {
  if (args.length !== 1 || args[0]!.trim() === "") {
    throw new UsageError(`Usage: ${io.command} ${action} FILE`);
  }
  const file = absolute(args[0]!);
  const paths = homePaths(io.home);
  const now = io.now ?? Date.now;
  if (action === "backup") {
    if (!await pathExists(paths.root)) {
      throw new HomeAgentError("no_home", `Cannot back up "${paths.root}": there is no home there`);
    }
    io.out.print(JSON.stringify(await backupHome(paths.root, file, { now }), null, 2));
    return 0;
  }
  if (await socketAnswers(paths.socket)) {
    throw new HomeAgentError(
      "daemon_running",
      `Cannot restore into "${paths.root}" while its daemon runs: stop the daemon first ` +
        `(Ctrl-C in its terminal, or systemctl stop for the service), then restore`,
    );
  }
  io.out.print(JSON.stringify(await restoreHome(file, paths.root, { now }), null, 2));
  return 0;
}

function absolute(path: string): string {
  return path.startsWith("/") ? path : `${Deno.cwd()}/${path}`;
}
