import assert from "node:assert/strict";
import { formatUsageReport, usageReport } from "../../../core/mod.ts";
import { MemoryUsageLedger } from "../../fakes/usage_ledger.ts";

Deno.test("usageReport fills every day, ranks sources and causes, and prices only priced calls", () => {
  const ledger = new MemoryUsageLedger();
  const now = new Date(2026, 0, 10, 12).getTime();
  const usage = (promptTokens: number, completionTokens: number) => ({
    promptTokens,
    completionTokens,
  });
  ledger.record({ source: "local", day: "2026-01-08", cause: "heartbeat", usage: usage(300, 50) });
  ledger.record({
    source: "cloud",
    day: "2026-01-10",
    cause: "web",
    usage: usage(100, 10),
    cost: 0.25,
  });
  ledger.record({ source: "cloud", day: "2026-01-01", cause: "web", usage: usage(9, 9) }); // out
  const report = usageReport(ledger, { now, days: 3, currency: "EUR" });
  assert.deepEqual(report.days.map((d) => [d.day, d.calls]), [
    ["2026-01-08", 1],
    ["2026-01-09", 0],
    ["2026-01-10", 1],
  ]);
  assert.deepEqual(report.sources.map((s) => [s.source, s.cost]), [
    ["local", undefined],
    ["cloud", 0.25],
  ]);
  assert.deepEqual(report.causes.map((c) => c.cause), ["heartbeat", "web"]);
  assert.equal(report.total.cost, 0.25);
  const lines = formatUsageReport(report);
  assert.equal(lines[0], "LLM usage from 2026-01-08 to 2026-01-10:");
  assert.ok(lines.some((l) => /^ {2}cloud +100 in +10 out +1 calls {2}EUR 0\.2500$/.test(l)));
  assert.deepEqual(
    formatUsageReport(usageReport(new MemoryUsageLedger(), { now, days: 1 })),
    ["No LLM calls from 2026-01-10 to 2026-01-10."],
  );
});
