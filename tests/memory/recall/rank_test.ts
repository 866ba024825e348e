import assert from "node:assert/strict";
import { createHashEmbedder } from "../../../memory/mod.ts";
import { inputEvent, rankEvents } from "./_rank.ts";

Deno.test("rankMemory folds an item repeating a better one into it: one place, every turn id", async () => {
  const ranked = await rankEvents(
    createHashEmbedder({ dim: 256 }),
    "good morning, how is my cat?",
    [
      inputEvent("m1", "Good morning!"),
      inputEvent("cat", "my cat Mimi sleeps on the sofa"),
      inputEvent("m2", "good  morning!"),
      inputEvent("boiler", "the boiler broke again"),
      inputEvent("m3", "GOOD MORNING!"),
    ],
  );
  assert.equal(ranked.length, 3, ranked.map((r) => r.text).join(" | "));
  const morning = ranked.find((r) => /morning/i.test(r.text))!;
  assert.deepEqual([...morning.turnIds].sort(), ["m1", "m2", "m3"]);
  assert.deepEqual(ranked.map((r) => r.turnIds[0]).filter((id) => !id!.startsWith("m")), [
    "cat",
    "boiler",
  ]);
});
