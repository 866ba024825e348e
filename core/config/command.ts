/**
 * `config get/set/unset/list` (DESIGN.md §4) over a ConfigRegistry: what the command prints
 * and refuses, apart from the process that opens the home's config.db.
 */
import { UsageError } from "../errors.ts";
import type { ConfigRegistry } from "./registry.ts";
import { SECRET_MASK } from "./types.ts";

/** Options of configCommand. */
export interface ConfigCommandOptions {
  /** Show secrets in `get` and `list` (`--reveal`). */
  reveal: boolean;
  /** One line of output. */
  print(line: string): void;
  /** How the owner runs the command line, for the usage lines (default `homeagent`). */
  command?: string;
}

/** Run `config ACTION [KEY [VALUE…]]`; returns the exit code. Throws UsageError, ConfigError. */
export function configCommand(
  registry: ConfigRegistry,
  args: readonly string[],
  options: ConfigCommandOptions,
): number {
  const cli = options.command ?? "homeagent";
  const [action, key, ...valueParts] = args;
  switch (action) {
    case "get":
      if (!key) throw new UsageError(`Usage: ${cli} config get KEY [--reveal]`);
      options.print(JSON.stringify(shownValue(registry, key, options.reveal)));
      return 0;
    case "set":
      if (!key || valueParts.length === 0) {
        throw new UsageError(`Usage: ${cli} config set KEY VALUE`);
      }
      registry.setFromText(key, valueParts.join(" "));
      return 0;
    case "unset":
      if (!key) throw new UsageError(`Usage: ${cli} config unset KEY`);
      registry.unset(key);
      return 0;
    case "list":
      for (const entry of registry.list(key ?? "", { reveal: options.reveal })) {
        const marker = entry.source === "default" ? "" : `  (${entry.source})`;
        options.print(`${entry.key} = ${JSON.stringify(entry.value)}${marker}`);
      }
      return 0;
    default:
      throw new UsageError(`Usage: ${cli} config get|set|unset|list ...`);
  }
}

/** The value of `key` as `config get` prints it: a secret masked, as `config list` does. */
function shownValue(registry: ConfigRegistry, key: string, reveal: boolean): unknown {
  const value = registry.get(key);
  const hidden = registry.describe(key).secret && !reveal && value !== "";
  return hidden ? SECRET_MASK : value;
}
