import assert from "node:assert/strict";
import { EmbedQueue, type QueueBackend } from "../../../memory/embed/_embed_queue.ts";

/** A backend whose calls wait until the test releases them; it records each call's texts. */
function gatedBackend() {
  const calls: string[][] = [];
  const gates: PromiseWithResolvers<void>[] = [];
  const backend: QueueBackend = {
    inline: false,
    async run(texts) {
      calls.push(texts);
      const gate = Promise.withResolvers<void>();
      gates.push(gate);
      await gate.promise;
      return texts.map((t) => Float32Array.of(t.length, calls.length));
    },
  };
  /** Let the oldest waiting call finish, then let the queue move on. */
  const release = async () => {
    gates.shift()!.resolve();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { backend, calls, release, waiting: () => gates.length };
}

Deno.test("EmbedQueue serves the owner's texts before queued background chunks", async () => {
  const { backend, calls, release } = gatedBackend();
  const queue = new EmbedQueue(backend, { chunk: 2 });
  const background = queue.embed(["b1", "b2", "b3", "b4", "b5"], { priority: "background" });
  await Promise.resolve();
  assert.deepEqual(calls, [["b1", "b2"]]);
  const owner = queue.embed(["query"]);
  await release(); // b1 b2 done: the owner's text goes next, not b3 b4
  assert.deepEqual(calls.at(-1), ["query"]);
  await release();
  assert.equal((await owner)[0]![0], "query".length);
  await release();
  await release();
  assert.deepEqual(calls, [["b1", "b2"], ["query"], ["b3", "b4"], ["b5"]]);
  assert.deepEqual((await background).map((v) => v[0]), [2, 2, 2, 2, 2]);
});

Deno.test("EmbedQueue sends long background texts a few characters at a time, so a query waits little", async () => {
  const { backend, calls, release } = gatedBackend();
  const queue = new EmbedQueue(backend, { chunk: 8, backgroundChars: 100 });
  const docs = ["a".repeat(60), "b".repeat(30), "c".repeat(20), "d".repeat(150), "e", "f"];
  const background = queue.embed(docs, { priority: "background" });
  await Promise.resolve();
  assert.deepEqual(calls, [[docs[0], docs[1]]]); // 90 characters; the next would pass 100
  const owner = queue.embed(["q1", "q2", "q3"]); // the owner's texts are not split by length
  await release();
  assert.deepEqual(calls.at(-1), ["q1", "q2", "q3"]);
  await release();
  await owner;
  for (let i = 0; i < 3; i++) await release();
  // A text over the budget goes alone; the rest fill the next call.
  assert.deepEqual(calls.slice(2), [[docs[2]], [docs[3]], ["e", "f"]]);
  assert.deepEqual((await background).map((v) => v[0]), docs.map((d) => d.length));
});

Deno.test("EmbedQueue answers repeated texts from its cache, in order, duplicates included", async () => {
  const { backend, calls, release } = gatedBackend();
  const queue = new EmbedQueue(backend, { chunk: 8, cacheSize: 2 });
  const first = queue.embed(["aa", "b", "aa"]);
  await release();
  const [x, y, z] = await first;
  assert.deepEqual(calls, [["aa", "b"]]);
  assert.equal(x, z);
  assert.equal(y![0], 1);
  const again = await queue.embed(["b", "aa"]);
  assert.equal(calls.length, 1); // no backend call
  assert.equal(again[1], x);
  const third = queue.embed(["ccc"]); // evicts the least recently used ("b")
  await release();
  await third;
  const fourth = queue.embed(["b"]);
  await release();
  await fourth;
  assert.deepEqual(calls.at(-1), ["b"]);
});

Deno.test("EmbedQueue drops an aborted request before it reaches the backend", async () => {
  const { backend, calls, release } = gatedBackend();
  const queue = new EmbedQueue(backend, { chunk: 1 });
  const busy = queue.embed(["first"]);
  const abort = new AbortController();
  const dropped = queue.embed(["never"], { signal: abort.signal });
  abort.abort(new Error("stopped"));
  await release();
  await busy;
  await assert.rejects(dropped, /stopped/);
  assert.deepEqual(calls, [["first"]]);
});

Deno.test("EmbedQueue rejects a request whose backend call fails and goes on with the next", async () => {
  let fail = true;
  const queue = new EmbedQueue({
    inline: true,
    run: (texts) => {
      if (fail) {
        fail = false;
        return Promise.reject(new Error("session failed"));
      }
      return Promise.resolve(texts.map(() => Float32Array.of(1)));
    },
  });
  await assert.rejects(queue.embed(["a"]), /session failed/);
  assert.deepEqual(await queue.embed(["a"]), [Float32Array.of(1)]);
  queue.close(new Error("closed"));
  await assert.rejects(queue.embed(["z"]), /closed/);
});
