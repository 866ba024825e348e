import assert from "node:assert/strict";
import { chineseNumber, distillText, splitCoordinated } from "../../../memory/loops/distiller.ts";
import { DISTILL_TABLE, shown } from "./_distill_table.ts";

Deno.test("distillText extracts personal facts in Chinese and English, one per coordinated object", () => {
  assert.ok(DISTILL_TABLE.length >= 60);
  for (const [text, expected] of DISTILL_TABLE) {
    assert.deepEqual(shown(distillText(text)), expected, text);
  }
});

Deno.test("distillText makes the speaker the subject, owner when unknown, with sentence and turn", () => {
  const [fact] = distillText("好的。我叫小红！", { subject: "qq:42", turnIds: ["t9"] });
  assert.equal(fact?.subject, "qq:42");
  assert.equal(fact?.sentence, "我叫小红！");
  assert.deepEqual(fact?.turnIds, ["t9"]);
  assert.equal(fact?.subjectType, "person");
  assert.equal(distillText("I live in Paris")[0]?.subject, "owner");
  const [rex, kind] = distillText("I have a dog named Rex");
  assert.deepEqual([rex?.objectType, kind?.subjectType, kind?.objectType], [
    "pet",
    "pet",
    "species",
  ]);
});

Deno.test("splitCoordinated splits Chinese and English lists, and leaves one item alone", () => {
  assert.deepEqual(splitCoordinated("火锅和烧烤"), ["火锅", "烧烤"]);
  assert.deepEqual(splitCoordinated("吃火锅和烧烤"), ["吃火锅", "吃烧烤"]);
  assert.deepEqual(splitCoordinated("jazz, hiking and sushi"), ["jazz", "hiking", "sushi"]);
  assert.deepEqual(splitCoordinated("jazz"), ["jazz"]);
  assert.deepEqual(splitCoordinated("和平"), ["和平"], "not a list: kept whole");
});

Deno.test("chineseNumber reads numerals up to the hundreds", () => {
  assert.equal(chineseNumber("三十"), 30);
  assert.equal(chineseNumber("十八"), 18);
  assert.equal(chineseNumber("两百零三"), 203);
  assert.equal(chineseNumber("七"), 7);
  assert.equal(chineseNumber("三x"), undefined);
});
