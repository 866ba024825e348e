import assert from "node:assert/strict";
import { ForgottenNames } from "../../../memory/forget/matcher.ts";
import { sweepRedactor } from "../../../memory/forget/hint.ts";

const NAMES = ["Bo Lindqvist", "张小凤", "José", "ΟΔΥΣΣΕΑΣ Παππάς", "Ｍｉｒｅｌｌｅ"];

function names(): ForgottenNames {
  const forgotten = new ForgottenNames([[1, new Uint8Array(32).fill(3)]]);
  for (const name of NAMES) forgotten.add(forgotten.tombstone(name, 1));
  return forgotten;
}

Deno.test("sweepRedactor finds what the hash matcher finds, in any case, width or composition", () => {
  const matcher = names();
  const sweep = sweepRedactor(matcher, NAMES);
  const texts = [
    "Tool call for Bo Lindqvist",
    "BO   LINDQVIST called",
    "我的朋友张小凤住在杭州",
    "Jose\u0301 is here", // a combining accent: the matcher folds it alone
    "José is here",
    "ΟΔΥΣΣΕΑΣ Παππάς wrote", // a capital sigma at the end of a word
    "ΟΔΥΣΣΕΑΣ ΠΑΠΠΆΣ",
    "οδυσσεας παππάς",
    "mirelle sails",
    "Bo's bakery and both of them",
    "nothing here at all",
    "",
  ];
  for (const text of texts) {
    assert.equal(sweep.mentions(text), matcher.mentions(text), text);
    assert.equal(sweep.redact(text), matcher.redact(text), text);
    if (matcher.mentions(text)) assert.ok(sweep.mayMention(text), text);
  }
  assert.equal(sweep.mayMention("nothing here at all"), false);
});

Deno.test("sweepRedactor without names of its own mentions nothing", () => {
  const sweep = sweepRedactor(names(), []);
  assert.equal(sweep.mentions("Bo Lindqvist"), false);
  assert.equal(sweep.redact("Bo Lindqvist"), "Bo Lindqvist");
});
