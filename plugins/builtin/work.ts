/**
 * The built-ins that work for the owner: files, cmd and timer, with the change tracker that
 * records what they change (`<home>/changesets`) inside the files sandbox (`<home>/agentfs` and
 * `plugin.files.roots`). The owner may disable each of them. Also `homeagent changes …`, which
 * reads the same tracker without a daemon.
 */
import { type Clock, type Logger, UsageError } from "../../core/mod.ts";
import type { PluginRegistry } from "../host/registry.ts";
import { changeLimits, createChangesPlugin } from "./changes/mod.ts";
import { type ChangesAction, changesCommand } from "./changes/commands.ts";
import { ChangeStore } from "./changes/store.ts";
import { ChangeTracker } from "./changes/tracker.ts";
import { createCmdPlugin } from "./cmd/mod.ts";
import { createFilesPlugin } from "./files/mod.ts";
import { createSandbox, type Sandbox } from "./files/sandbox.ts";
import { createTimerPlugin } from "./timer/mod.ts";

/** The home's folders and files the work plugins use. */
export interface WorkPaths {
  agentfs: string;
  changesets: string;
  timers: string;
}

/** What the tracker reads. */
export interface WorkDeps {
  config: { get<T = unknown>(key: string): T };
  clock: Clock;
  logger: Logger;
}

/** The files sandbox and the change tracker of a home. */
export function openTracker(
  paths: Pick<WorkPaths, "agentfs" | "changesets">,
  deps: WorkDeps,
): { sandbox: Sandbox; tracker: ChangeTracker } {
  const { config, clock, logger } = deps;
  const sandbox = createSandbox(paths.agentfs, () => config.get<string[]>("plugin.files.roots"));
  const tracker = new ChangeTracker({
    store: new ChangeStore({ dir: paths.changesets, logger }),
    clock,
    logger: logger.child({ component: "changes" }),
    limits: () => changeLimits((key) => config.get(`plugin.changes.${key}`)),
    sandbox,
  });
  return { sandbox, tracker };
}

/** Register files, cmd, timer and changes on `plugins` (each one the owner may disable). */
export function registerWorkPlugins(
  plugins: PluginRegistry,
  paths: WorkPaths,
  deps: WorkDeps & { env: Record<string, string | undefined> },
): void {
  const { clock, env } = deps;
  const { sandbox, tracker } = openTracker(paths, deps);
  const optional = { optional: true };
  plugins.registerFactory(
    "files",
    () => createFilesPlugin({ sandbox, recorder: tracker }),
    optional,
  );
  plugins.registerFactory(
    "cmd",
    () => createCmdPlugin({ sandbox, clock, recorder: tracker, env }),
    optional,
  );
  plugins.registerFactory(
    "timer",
    () => createTimerPlugin({ file: paths.timers, clock }),
    optional,
  );
  plugins.registerFactory("changes", () => createChangesPlugin({ tracker }), optional);
}

/** What `changes` needs from the process. */
export interface ChangesCommandIo {
  /** The home with its config open; disposing closes it. */
  openHome(): Promise<
    { paths: Pick<WorkPaths, "agentfs" | "changesets">; registry: WorkDeps["config"] } & {
      clock: Clock;
      logger: Logger;
    } & Disposable
  >;
  out: { print(line: string): void };
}

/** `changes list | show ID | rollback ID`: on the home's changeset files. Throws UsageError. */
export async function runChangesCommand(
  args: readonly string[],
  io: ChangesCommandIo,
): Promise<number> {
  const [action, id] = args;
  if (!["list", "show", "rollback"].includes(action ?? "") || (action !== "list" && !id)) {
    throw new UsageError("Usage: homeagent changes list | show ID | rollback ID");
  }
  using home = await io.openHome();
  const { tracker } = openTracker(home.paths, { ...home, config: home.registry });
  io.out.print(await changesCommand(tracker, action as ChangesAction, id));
  return 0;
}
