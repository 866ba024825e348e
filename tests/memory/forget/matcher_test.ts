import assert from "node:assert/strict";
import { checkForgetName, NameError } from "../../../core/mod.ts";
import { FORGOTTEN_MARK, ForgottenNames } from "../../../memory/mod.ts";

function forgetting(...names: string[]): ForgottenNames {
  const f = new ForgottenNames([[1, crypto.getRandomValues(new Uint8Array(32))]]);
  for (const name of names) f.add(f.tombstone(name, 1));
  return f;
}

Deno.test("ForgottenNames matches whole words in Latin script and any run in Chinese", () => {
  const f = forgetting("Bo", "张小凤", "Anna Lee");
  assert.equal(f.mentions("Both of us went"), false, "Bo is not in Both");
  assert.equal(f.mentions("Jimbo said hi"), false);
  assert.equal(f.mentions("I met Bo's dog"), true);
  assert.equal(f.mentions("BO called"), true, "case does not matter");
  assert.equal(f.mentions("Ｂｏ called"), true, "full-width folds to Bo");
  assert.equal(f.mentions("我的朋友张小凤住在杭州"), true);
  assert.equal(f.mentions("我的朋友张小明住在杭州"), false);
  assert.equal(f.mentions("met anna   lee\nyesterday"), true, "spaces collapse");
  assert.equal(f.redact("Bo, Both and Bo."), `${FORGOTTEN_MARK}, Both and ${FORGOTTEN_MARK}.`);
  assert.equal(f.redact("张小凤说张小凤"), FORGOTTEN_MARK + "说" + FORGOTTEN_MARK);
  assert.equal(f.redact("Anna  Lee!"), `${FORGOTTEN_MARK}!`);
  assert.equal(f.isForgotten(" bo "), true);
  assert.equal(f.isForgotten("Bob"), false);
});

Deno.test("A tombstone is a keyed hash: the name is not in it, another key gives another hash", () => {
  const a = forgetting(), b = forgetting();
  const ta = a.tombstone("Mirelle", 1), tb = b.tombstone("Mirelle", 1);
  assert.doesNotMatch(JSON.stringify(ta), /mirelle/i);
  assert.notEqual(ta.hash, tb.hash);
  assert.equal(ta.length, 7);
  assert.equal(new ForgottenNames().mentions("anything"), false, "no tombstones, no work");
});

Deno.test("checkForgetName refuses names that would erase everything, with the reason", () => {
  assert.equal(checkForgetName("  Mirelle   Okafor "), "Mirelle Okafor");
  for (
    const [bad, why] of [
      ["", /empty/],
      ["   ", /empty/],
      ["x", /single character/],
      ["!!", /no letter or digit/],
      ["Owner", /owner's own entity/],
      ["a\u0000b", /control character/],
      ["y".repeat(201), /longer than 200/],
    ] as const
  ) {
    assert.throws(() => checkForgetName(bad), (e) => e instanceof NameError && why.test(e.message));
  }
  assert.throws(() => checkForgetName(42), NameError);
});
