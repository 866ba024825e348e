/** What every `memory …` command gets: the home, its config and the daemon's clock and logger. */
import type { Clock, ConfigRegistry, Logger } from "../../core/mod.ts";
import type { HomePaths } from "../home.ts";

/** What every memory command needs. */
export interface MemoryCommandContext {
  paths: HomePaths;
  config: ConfigRegistry;
  clock: Clock;
  logger: Logger;
}
