/** A ConfigRegistry on an in-memory (or temp-file) SQLite store, with the core defaults. */
import { ConfigRegistry } from "../../core/config/registry.ts";
import { registerCoreDefaults } from "../../core/config/core_defaults.ts";
import { SqliteConfigStore } from "../../memory/stores/config.ts";
import { ManualClock } from "./clock.ts";
import { MemoryLogger } from "./logger.ts";

/** Options of openTestRegistry. */
export interface TestRegistryOptions {
  /** Database file; default ":memory:". */
  path?: string;
  env?: Record<string, string | undefined>;
  /** Skip registerCoreDefaults. */
  bare?: boolean;
}

/** A registry with its collaborators; `using` it closes the database. */
export interface TestRegistry extends Disposable {
  registry: ConfigRegistry;
  store: SqliteConfigStore;
  clock: ManualClock;
  logger: MemoryLogger;
}

/** Open a registry over a fresh SQLite store; dispose (or `using`) closes it. */
export function openTestRegistry(options: TestRegistryOptions = {}): TestRegistry {
  const store = new SqliteConfigStore({ path: options.path ?? ":memory:" });
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const registry = new ConfigRegistry({ store, clock, logger, env: options.env });
  if (!options.bare) registerCoreDefaults(registry);
  return { registry, store, clock, logger, [Symbol.dispose]: () => store.close() };
}
