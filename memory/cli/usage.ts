/**
 * `homeagent usage [--days N] [--json]`: the home's LLM usage (usage.db) per source, cause and
 * day, in tokens and in money where a source is priced. It reads the database directly, so it
 * works whether or not the daemon runs (WAL lets both in at once).
 */
import { join } from "node:path";
import { formatUsageReport, UsageError, usageReport } from "../../core/mod.ts";
import { SqliteUsageStore } from "../stores/usage.ts";
import type { MemoryCommandIo } from "./commands.ts";

/** Flags of `usage`. */
export interface UsageFlags {
  days?: string;
  json?: boolean;
}

/** Run `usage`; prints the report (text, or JSON with --json). Throws UsageError. */
export async function runUsageCommand(
  args: readonly string[],
  flags: UsageFlags,
  io: MemoryCommandIo,
): Promise<number> {
  const help = `Usage: ${io.command} usage [--days N] [--json]`;
  if (args.length > 0) throw new UsageError(help);
  const days = flags.days === undefined ? 7 : Number(flags.days);
  if (!Number.isInteger(days) || days < 1 || days > 3660) {
    throw new UsageError(`Invalid --days "${flags.days}": expected a whole number of days 1-3660`);
  }
  using home = await io.openHome();
  const path = join(home.paths.root, "usage.db");
  const exists = await Deno.stat(path).then(() => true, () => false);
  const currency = home.registry.get<string>("core.llm.currency");
  const now = home.clock.now();
  const report = exists
    ? (() => {
      using ledger = new SqliteUsageStore({ path });
      return usageReport(ledger, { now, days, currency });
    })()
    : usageReport({ causes: () => [] }, { now, days, currency });
  if (flags.json) io.out.print(JSON.stringify(report, null, 2));
  else for (const line of formatUsageReport(report)) io.out.print(line);
  return 0;
}
