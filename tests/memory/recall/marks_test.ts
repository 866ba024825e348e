import assert from "node:assert/strict";
import { registerMemoryDefaults } from "../../../memory/mod.ts";
import { markLifetimeFrom } from "../../../memory/recall/config.ts";
import { RecalledMarks } from "../../../memory/recall/marks.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { openTestRegistry } from "../../fakes/config.ts";

Deno.test("recalled marks read their lifetime from core.memory.recall.recalled_* at each check", () => {
  using config = openTestRegistry();
  const { registry } = config;
  registerMemoryDefaults(registry);
  const lifetime = markLifetimeFrom(registry);
  assert.deepEqual(lifetime(), { turns: 10, ms: 30 * 60_000 }, "the documented defaults");
  const clock = new ManualClock();
  const marks = new RecalledMarks({ clock, lifetime, capacity: 2 });
  marks.mark([1, 2, 3]);
  assert.equal(marks.has(1), false, "over capacity: the oldest mark goes");
  marks.nextTurn();
  assert.equal(marks.has(2), true);
  registry.set("core.memory.recall.recalled_turns", 0);
  assert.equal(marks.has(2), false, "a change applies at once");
  registry.set("core.memory.recall.recalled_turns", 10);
  registry.set("core.memory.recall.recalled_minutes", 1);
  clock.advance(60_000);
  assert.equal(marks.has(3), false, "a minute later, with a one-minute lifetime");
  assert.throws(() => registry.set("core.memory.recall.recalled_turns", -1));
});
