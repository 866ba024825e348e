/**
 * The matcher's pre-check (memory/forget/quick_hash.ts) must find exactly what hashing every
 * window finds: tombstones with a quick hash and the same tombstones without one (as made
 * before it, matched the old way) give the same spans on any text.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import fc from "fast-check";
import { type Tombstone } from "../../../memory/forget/matcher.ts";
import { ForgottenNames, GraphDB } from "../../../memory/mod.ts";
import { quickBase, quickHash, rollWindows } from "../../../memory/forget/quick_hash.ts";
import { ManualClock } from "../../fakes/clock.ts";

const NAMES = ["Bo", "Anna Lee", "张小凤", "Zoë", "ｂｏ", "Ünal", "李", "Jean-Luc", "😀x"];
const PIECES = [
  ...NAMES,
  "both",
  "anna  lee",
  "ANNA\nLEE",
  "张小凤凤",
  "zoe\u0308",
  "的",
  " ",
  "'s",
  ", ",
  "Bo's",
  "x",
  "😀",
  "ﬁ",
  "\t",
];

function matchers(key: Uint8Array, names: string[]): [ForgottenNames, ForgottenNames] {
  const fast = new ForgottenNames([[1, key]]);
  const slow = new ForgottenNames([[1, key]]);
  for (const name of names) {
    const t = fast.tombstone(name, 1);
    fast.add(t);
    const { quick: _, ...old }: Tombstone = t;
    slow.add(old);
  }
  return [fast, slow];
}

Deno.test("The rolled pre-check finds the same spans as hashing every window", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.subarray(NAMES, { minLength: 1 }),
      fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }),
      (key, names, pieces) => {
        const [fast, slow] = matchers(key, names);
        const text = pieces.join("");
        assert.deepEqual(fast.spans(text), slow.spans(text), JSON.stringify(text));
      },
    ),
    { numRuns: 400 },
  );
});

Deno.test("rollWindows reports every window whose hash is asked for, and only those", () => {
  const base = quickBase(new Uint8Array([7, 1, 2, 3]));
  const codes = [..."abcabcab"].map((c) => c.codePointAt(0)!);
  const hits: number[] = [];
  rollWindows(base, codes, 3, new Set([quickHash(base, codes, 0, 3)]), (s) => hits.push(s));
  assert.deepEqual(hits, [0, 3]);
  const none: number[] = [];
  rollWindows(base, codes, 9, new Set([0]), (s) => none.push(s));
  assert.deepEqual(none, [], "a window longer than the text");
  assert.equal(quickBase(new Uint8Array([1, 0, 0, 0])) !== 1, true, "a base of 1 is refused");
});

Deno.test("A tombstone keeps its quick hash across a reopen; one stored without it still matches", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-quick-" });
  try {
    const path = join(dir, "graph.db");
    const clock = new ManualClock();
    let graph = GraphDB.open({ path, clock });
    await graph.forget("Mirelle");
    await graph.forget("周小川");
    graph.close();
    const db = new DatabaseSync(path);
    const rows = db.prepare("select quick from tombstones").all();
    assert.equal(rows.length, 2);
    assert.ok(rows.every((r) => typeof r.quick === "number" || typeof r.quick === "bigint"));
    // What a home forgot before the pre-check existed: no quick hash.
    db.exec("update tombstones set quick = null");
    db.close();
    graph = GraphDB.open({ path, clock });
    assert.equal(graph.forgotten.mentions("I saw mirelle today"), true);
    assert.equal(graph.forgotten.redact("他说周小川来了"), "他说[forgotten]来了");
    assert.equal(graph.dump().tombstones.tombstones.every((t) => t.quick === undefined), true);
    graph.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
