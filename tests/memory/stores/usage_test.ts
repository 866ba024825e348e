import assert from "node:assert/strict";
import { SqliteUsageStore } from "../../../memory/stores/usage.ts";

Deno.test("SqliteUsageStore adds calls per source per day and reads ranges", () => {
  const store = new SqliteUsageStore({ path: ":memory:" });
  try {
    store.record("a", "2026-01-01", { promptTokens: 10, completionTokens: 5, cachedTokens: 4 });
    store.record("a", "2026-01-01", { promptTokens: 1, completionTokens: 2, estimated: true });
    store.record("b", "2026-01-02", { promptTokens: 7, completionTokens: 3 });
    assert.deepEqual(store.totals("a", "2026-01-01"), {
      source: "a",
      day: "2026-01-01",
      promptTokens: 11,
      completionTokens: 7,
      cachedTokens: 4,
      estimatedTokens: 3,
      calls: 2,
    });
    assert.equal(store.totals("a", "2026-01-02").calls, 0);
    assert.deepEqual(store.range("2026-01-01", "2026-01-02").map((r) => [r.day, r.source]), [
      ["2026-01-01", "a"],
      ["2026-01-02", "b"],
    ]);
  } finally {
    store.close();
  }
});
