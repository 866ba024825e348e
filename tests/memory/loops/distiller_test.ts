import assert from "node:assert/strict";
import { chineseNumber, DISTILLED, distillText } from "../../../memory/loops/distiller.ts";

const { name, home, likes, age, job } = DISTILLED;

/** [text, expected "predicate:object" facts]. */
const CASES: [string, string[]][] = [
  // Chinese
  ["我叫小明。", [`${name}:小明`]],
  ["我的名字是王芳，很高兴认识你", [`${name}:王芳`]],
  ["我住在北京朝阳区，离公司很近", [`${home}:北京朝阳区`]],
  ["我家在上海", [`${home}:上海`]],
  ["我喜欢猫和狗", [`${likes}:猫`]],
  ["我爱吃火锅", [`${likes}:吃火锅`]],
  ["我三十岁", [`${age}:30`]],
  ["我今年25岁了", [`${age}:25`]],
  ["我二十五岁", [`${age}:25`]],
  ["我的工作是程序员", [`${job}:程序员`]],
  ["我在谷歌工作", [`${job}:谷歌`]],
  // English
  ["My name is John Smith and I live in Boston.", [`${name}:John Smith`, `${home}:Boston`]],
  ["I live in a small town near Lyon", [`${home}:a small town near Lyon`]],
  ["I love hiking", [`${likes}:hiking`]],
  ["I really like jazz, especially Coltrane", [`${likes}:jazz`]],
  ["I like to swim", [`${likes}:swim`]],
  ["I'm 42 years old", [`${age}:42`]],
  ["I am twenty-five years old", [`${age}:25`]],
  ["I work as a software engineer at Google.", [`${job}:software engineer`]],
  // Negatives: questions, negations, pronouns and clauses state no fact
  ["我叫什么名字？", []],
  ["我不喜欢香菜", []],
  ["我爱你", []],
  ["我爱人在医院工作", []],
  ["我在想工作的事", []],
  ["I like that you remember things.", []],
  ["I like it", []],
  ["I love you", []],
  ["Do I like jazz?", []],
  ["I don't like rain", []],
  ["I'd like a coffee", []],
  ["My name is not important", []],
];

Deno.test("distillText extracts personal facts in Chinese and English", () => {
  for (const [text, expected] of CASES) {
    const facts = distillText(text).map((t) => `${t.predicate}:${t.object}`);
    assert.deepEqual(facts, expected, text);
  }
});

Deno.test("distillText makes the speaker the subject, owner when unknown, with sentence and turn", () => {
  const [fact] = distillText("好的。我叫小红！", { subject: "qq:42", turnIds: ["t9"] });
  assert.equal(fact?.subject, "qq:42");
  assert.equal(fact?.sentence, "我叫小红！");
  assert.deepEqual(fact?.turnIds, ["t9"]);
  assert.equal(fact?.subjectType, "person");
  assert.equal(distillText("I live in Paris")[0]?.subject, "owner");
});

Deno.test("chineseNumber reads numerals up to the hundreds", () => {
  assert.equal(chineseNumber("三十"), 30);
  assert.equal(chineseNumber("十八"), 18);
  assert.equal(chineseNumber("两百零三"), 203);
  assert.equal(chineseNumber("七"), 7);
  assert.equal(chineseNumber("三x"), undefined);
});
