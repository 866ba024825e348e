import assert from "node:assert/strict";
import type { Figure, FigureFn } from "./_figure.ts";
import { failedFigures, formatTable, measureFigures } from "./_harness.ts";

Deno.test("measureFigures reports a bench that throws as an error entry and measures the rest", async () => {
  const ran: string[] = [];
  const pair: FigureFn = () => {
    ran.push("pair");
    return Promise.reject(new Error("chromium not found at /usr/bin/chromium"));
  };
  const benches: Record<string, FigureFn> = {
    "before_ms": () => {
      ran.push("before");
      return Promise.resolve({ value: 1.5, unit: "ms" });
    },
    "page_load_ms": pair,
    "page_tti_ms": pair,
    "after_ratio": () => {
      ran.push("after");
      return Promise.resolve({ "after_ratio": { value: 2, unit: "x" } });
    },
  };
  const results = await measureFigures(benches);
  assert.deepEqual(
    ran,
    ["before", "pair", "after"],
    "a shared bench runs once, the rest still run",
  );
  assert.deepEqual(results, {
    "before_ms": { value: 1.5, unit: "ms" },
    "page_load_ms": { error: "chromium not found at /usr/bin/chromium" },
    "page_tti_ms": { error: "chromium not found at /usr/bin/chromium" },
    "after_ratio": { value: 2, unit: "x" },
  });
  assert.deepEqual(failedFigures(results), ["page_load_ms", "page_tti_ms"]);
  const json = JSON.parse(JSON.stringify({ figures: results }));
  assert.equal(json.figures.page_tti_ms.error, "chromium not found at /usr/bin/chromium");
  const table = formatTable(results).split("\n");
  assert.match(table[2]!, /^page_load_ms\s+error\s+chromium not found/);
  assert.match(table[4]!, /^after_ratio\s+2\s+x$/);
});

Deno.test("measureFigures marks a figure its bench did not report, and honours --only", async () => {
  const both: FigureFn = () =>
    Promise.resolve({ "a_ms": { value: 3, unit: "ms" } } as Record<string, Figure>);
  const results = await measureFigures({ "a_ms": both, "b_ms": both, "c_ms": both }, {
    only: ["a_ms", "b_ms"],
  });
  assert.deepEqual(results, {
    "a_ms": { value: 3, unit: "ms" },
    "b_ms": { error: 'its bench reported no finite value for "b_ms"' },
  });
});
