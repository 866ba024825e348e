import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "../../../memory/sqlite.ts";
import { SqliteUsageStore, usageMigrations } from "../../../memory/stores/usage.ts";

Deno.test("SqliteUsageStore adds calls per source, cause and day, with money, and reads ranges", () => {
  using store = new SqliteUsageStore({ path: ":memory:" });
  store.record({
    source: "a",
    day: "2026-01-01",
    cause: "web",
    usage: { promptTokens: 10, completionTokens: 5, cachedTokens: 4 },
    cost: 0.5,
  });
  store.record({
    source: "a",
    day: "2026-01-01",
    cause: "heartbeat",
    usage: { promptTokens: 1, completionTokens: 2, estimated: true },
  });
  store.record({
    source: "b",
    day: "2026-01-02",
    cause: "web",
    usage: { promptTokens: 7, completionTokens: 3 },
  });
  assert.deepEqual(store.totals("a", "2026-01-01"), {
    source: "a",
    day: "2026-01-01",
    promptTokens: 11,
    completionTokens: 7,
    cachedTokens: 4,
    estimatedTokens: 3,
    calls: 2,
    cost: 0.5,
  });
  assert.equal(store.totals("a", "2026-01-02").calls, 0);
  assert.equal(store.totals("b", "2026-01-02").cost, undefined, "never priced: no cost");
  assert.deepEqual(store.range("2026-01-01", "2026-01-02").map((r) => [r.day, r.source]), [
    ["2026-01-01", "a"],
    ["2026-01-02", "b"],
  ]);
  assert.equal(store.causeTokens("web", "2026-01-01"), 15);
  assert.equal(store.causeTokens("web", "2026-01-03"), 0);
  assert.deepEqual(
    store.causes("2026-01-01", "2026-01-02").map((r) => [r.day, r.source, r.cause, r.calls]),
    [
      ["2026-01-01", "a", "heartbeat", 1],
      ["2026-01-01", "a", "web", 1],
      ["2026-01-02", "b", "web", 1],
    ],
  );
});

Deno.test("SqliteUsageStore keeps the usage recorded before causes, as cause unknown", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "usage.db");
  try {
    const old = openDatabase(path, { migrations: usageMigrations.slice(0, 2) });
    old.prepare(
      `insert into usage (day, source, prompt_tokens, completion_tokens, cached_tokens, calls,
         estimated_tokens) values ('2026-01-01', 'a', 100, 20, 0, 3, 0)`,
    ).run();
    old.close();
    using store = new SqliteUsageStore({ path });
    assert.deepEqual(store.causes("2026-01-01", "2026-01-01").map((r) => [r.cause, r.calls]), [
      ["unknown", 3],
    ]);
    assert.equal(store.totals("a", "2026-01-01").promptTokens, 100);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
