/** readBounded: the first `max` bytes of a body, and whether more was sent; the rest unread. */
import assert from "node:assert/strict";
import { readBounded } from "../../core/mod.ts";

function stream(pieces: string[]): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < pieces.length) controller.enqueue(new TextEncoder().encode(pieces[i++]));
      else controller.close();
    },
  }, { highWaterMark: 0 });
  return { body, pulled: () => i };
}

Deno.test("readBounded reads a body within the bound whole, and one past it up to the bound", async () => {
  assert.deepEqual(await readBounded(stream(["ab", "cd"]).body, 4), { text: "abcd", over: false });
  assert.deepEqual(await readBounded(null, 4), { text: "", over: false });
  const long = stream(["ab", "cd", "ef", "gh", "ij"]);
  assert.deepEqual(await readBounded(long.body, 5), { text: "abcde", over: true });
  assert.equal(long.pulled(), 3, "nothing read past the piece that crossed the bound");
  assert.deepEqual(await readBounded(stream(["日本"]).body, 6), { text: "日本", over: false });
});
