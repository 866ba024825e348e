import assert from "node:assert/strict";
import { runKillLoop } from "./kill_loop.ts";

// The short run of `deno task soak`: five kills of a real daemon under chats from every kind of
// caller. Before the context journal, about four kills in five lost acknowledged chats.
Deno.test("Kill loop: every acknowledged chat survives SIGKILL, none is stored twice", async () => {
  const result = await runKillLoop({ kills: 5, seed: 11, minLifeMs: 400, maxLifeMs: 1400 });
  assert.ok(result.acknowledged > 0, "chats were acknowledged");
  assert.ok(result.inDocuments > 0, "prunes archived some to documents");
  assert.deepEqual(
    { lost: result.lost, doubled: result.doubled, examples: result.examples },
    { lost: 0, doubled: 0, examples: [] },
  );
});
