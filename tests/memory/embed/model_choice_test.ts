import assert from "node:assert/strict";
import { chooseDefaultModel, processLocale } from "../../../memory/embed/model_choice.ts";
import { catalogModel, DEFAULT_MODEL } from "../../../memory/mod.ts";

const chinese = Array.from(
  { length: 12 },
  (_, i) => `第${i}天：我的猫 Mimi 今天不吃饭，去看了 vet。`,
);
const english = Array.from({ length: 12 }, (_, i) => `Day ${i}: my cat Mimi would not eat today.`);

Deno.test("the default model follows the language of the home's memories", () => {
  assert.deepEqual(chooseDefaultModel(chinese, "en_US.UTF-8"), {
    name: "bge-small-zh-v15-q",
    language: "zh",
    basis: "memories",
  });
  assert.deepEqual(chooseDefaultModel(english, "zh_CN.UTF-8"), {
    name: "e5-small-v2-q",
    language: "en",
    basis: "memories",
  });
  const russian = Array.from({ length: 12 }, () => "Мой кот сегодня не ел.");
  assert.deepEqual(chooseDefaultModel(russian, "en_US.UTF-8"), {
    name: DEFAULT_MODEL,
    basis: "default",
  });
});

Deno.test("a home with few memories is read by its locale, else gets the bilingual default", () => {
  assert.equal(chooseDefaultModel(english.slice(0, 3), "zh_TW.UTF-8").name, "bge-small-zh-v15-q");
  assert.deepEqual(chooseDefaultModel([], "en_GB.UTF-8"), {
    name: "e5-small-v2-q",
    language: "en",
    basis: "locale",
  });
  assert.equal(chooseDefaultModel([], "C.UTF-8").basis, "default");
  assert.equal(chooseDefaultModel([], "enx").basis, "default");
  assert.equal(chooseDefaultModel([], undefined).name, DEFAULT_MODEL);
  for (const language of ["zh", "en"]) {
    const name = chooseDefaultModel([], `${language}_XX`).name;
    assert.ok(catalogModel(name)?.languages.includes(language), `${name} is for ${language}`);
  }
});

Deno.test("processLocale reads LC_ALL, then LC_MESSAGES, then LANG", () => {
  const env = (values: Record<string, string>) => (name: string) => values[name];
  assert.equal(processLocale(env({ LANG: "en_US", LC_ALL: "zh_CN" })), "zh_CN");
  assert.equal(processLocale(env({ LANG: "en_US", LC_MESSAGES: "zh_CN" })), "zh_CN");
  assert.equal(processLocale(env({ LANG: "en_US" })), "en_US");
  assert.equal(processLocale(env({})), undefined);
});
