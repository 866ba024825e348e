import assert from "node:assert/strict";
import { LruMap } from "../../core/mod.ts";

Deno.test("LruMap keeps its most recently used keys: a read or a write makes a key the newest", () => {
  const lru = new LruMap<string, number>(2);
  lru.set("a", 1);
  lru.set("b", 2);
  assert.equal(lru.get("a"), 1); // a is now newer than b
  assert.equal(lru.set("c", 3), 3);
  assert.equal(lru.get("b"), undefined);
  assert.equal(lru.get("a"), 1);
  lru.set("c", 30); // rewriting c makes it the newest
  lru.set("d", 4);
  assert.equal(lru.get("a"), undefined);
  assert.deepEqual([lru.get("c"), lru.get("d"), lru.size], [30, 4, 2]);
  lru.clear();
  assert.equal(lru.size, 0);
});

Deno.test("LruMap of capacity 0 holds nothing", () => {
  const lru = new LruMap<string, number>(0);
  assert.equal(lru.set("a", 1), 1);
  assert.deepEqual([lru.get("a"), lru.size], [undefined, 0]);
});
