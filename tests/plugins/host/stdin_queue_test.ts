/** The bounded stdin queue of a plugin: pooled encoding, byte accounting and the stall deadline. */
import assert from "node:assert/strict";
import { StdinQueue } from "../../../plugins/host/stdin_queue.ts";
import { flushMicrotasks, ManualClock } from "../../fakes/clock.ts";

/** A stdin whose writes finish when the test says: the bytes each one held, as written. */
function pipe() {
  const written: { text: string; chunk: Uint8Array }[] = [];
  const done: (() => void)[] = [];
  const stream = new WritableStream<Uint8Array>({
    write(chunk) {
      written.push({ text: new TextDecoder().decode(chunk), chunk });
      return new Promise<void>((resolve) => done.push(resolve));
    },
  });
  return { writer: stream.getWriter(), written, done };
}

function queue(p: ReturnType<typeof pipe>, clock: ManualClock, blocked: string[]) {
  return new StdinQueue({
    writer: p.writer,
    clock,
    maxBytes: 1 << 20,
    maxFrames: 100,
    stallMs: 1000,
    onBlocked: (reason) => blocked.push(reason),
  });
}

Deno.test("StdinQueue.writeText reuses a frame's buffer once the pipe has taken it, never before", async () => {
  const clock = new ManualClock();
  const p = pipe();
  const blocked: string[] = [];
  const q = queue(p, clock, blocked);
  q.writeText('{"id":1}\n', 1);
  await flushMicrotasks();
  q.writeText('{"id":2}\n', 1); // the first is still being written: it gets another buffer
  await flushMicrotasks();
  const decode = (chunk: Uint8Array) => new TextDecoder().decode(chunk);
  assert.deepStrictEqual(decode(p.written[0]!.chunk), '{"id":1}\n', "the first frame is intact");
  assert.deepStrictEqual(q.bytes, 18);
  p.done.shift()!();
  await flushMicrotasks();
  assert.notStrictEqual(p.written[1]!.chunk.buffer, p.written[0]!.chunk.buffer);
  p.done.shift()!();
  await flushMicrotasks();
  q.writeText('{"id":3}\n', 1); // both are back: one of them is used again
  await flushMicrotasks();
  const reused = [p.written[0]!.chunk.buffer, p.written[1]!.chunk.buffer];
  assert.ok(reused.includes(p.written[2]!.chunk.buffer));
  assert.deepStrictEqual(p.written.map((w) => w.text), ['{"id":1}\n', '{"id":2}\n', '{"id":3}\n']);
  for (const resolve of p.done.splice(0)) resolve();
  await flushMicrotasks();
  assert.deepStrictEqual(q.bytes, 0);
  assert.deepStrictEqual(blocked, []);
  q.close();
});

Deno.test("StdinQueue.writeText gives a frame too large for a pooled buffer its own, all of it", async () => {
  const clock = new ManualClock();
  const p = pipe();
  const q = queue(p, clock, []);
  const big = JSON.stringify({ text: "字".repeat(3000) }) + "\n";
  q.writeText(big, 1);
  await flushMicrotasks();
  assert.deepStrictEqual(p.written[0]!.text, big);
  assert.deepStrictEqual(q.bytes, new TextEncoder().encode(big).length);
  for (const resolve of p.done.splice(0)) resolve();
  q.close();
});

Deno.test("StdinQueue: a plugin that takes nothing for the stall time is reported, one that keeps up is not", async () => {
  const clock = new ManualClock();
  const p = pipe();
  const blocked: string[] = [];
  const q = queue(p, clock, blocked);
  q.writeText("a\n", 1);
  await flushMicrotasks();
  p.done.shift()!(); // taken: the queue is empty again
  await flushMicrotasks();
  clock.advance(5000);
  q.writeText("b\n", 1); // waits from now, not from the first write
  await flushMicrotasks();
  clock.advance(999);
  assert.deepStrictEqual(blocked, []);
  clock.advance(1);
  await flushMicrotasks();
  assert.deepStrictEqual(blocked.length, 1);
  for (const resolve of p.done.splice(0)) resolve();
  q.close();
});
