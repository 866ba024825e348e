/**
 * The calibrated estimate against the real tokenizers (gpt-tokenizer's cl100k_base and
 * o200k_base): it must err high on every kind of text the prompt carries, and not by much.
 */
import assert from "node:assert/strict";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { estimateTokens } from "../../../core/mod.ts";

const SAMPLES: Record<string, string> = {
  english: "You are HomeAgent, a personal assistant that lives on your owner's home server. " +
    "You remember what matters to the people you talk with, you use tools when they help, and " +
    "you answer plainly and briefly. When you do not know, you say so. The garden needs water " +
    "twice a week in summer; the tomatoes were planted on the third of May.",
  chinese: "我们明天去北京看看天安门，然后去吃烤鸭。小明说他喜欢跑步和书法，他的妈妈是一名护士。" +
    "今天天气很好，我们一起去公园散步吧。",
  mixed: "Ann and 小明 want to plan the weekend: does Ann still like jazz, and where does she " +
    "live? 他们住在上海。",
  japanese: "今日はとても良い天気ですね。明日は東京に行きます。",
  korean: "안녕하세요, 오늘 날씨가 정말 좋네요. 내일은 서울에 갑니다.",
  russian: "Привет! Как дела? Сегодня хорошая погода, и мы пойдём гулять в парк с друзьями.",
  german: "Die Äpfel schmecken heute besonders gut, während die Kinder draußen spielen.",
  schema: JSON.stringify({
    type: "object",
    properties: {
      keywords: { type: "array", items: { type: "string" }, description: "Words to look up" },
      depth: { type: "integer", minimum: 1, maximum: 3, description: "BFS depth (2)" },
    },
    required: ["keywords"],
  }),
  code: "export function fitLines(lines: readonly string[], budget: number): string[] {\n" +
    "  const costs = lines.map((line) => count(line) + 1);\n  return lines.slice(0, 3);\n}\n",
  timeline: Array.from(
    { length: 12 },
    (_, i) => `[2026-01-01 10:${String(i).padStart(2, "0")}] cli: Question ${i} about jazz?`,
  ).join("\n"),
  url: "https://example.com/path/to/resource?id=123&token=abcdef0123456789 see the docs",
  emoji: "Great job 🎉🎉 let's go 🚀 ✅ done",
};

Deno.test("estimateTokens errs high against cl100k and o200k on every kind of prompt text", () => {
  for (const [name, text] of Object.entries(SAMPLES)) {
    const real = Math.max(cl100k(text), o200k(text));
    const ratio = estimateTokens(text) / real;
    assert.ok(
      ratio >= 0.95 && ratio <= 1.6,
      `${name}: estimate ${estimateTokens(text)}, real ${real}`,
    );
  }
  const all = Object.values(SAMPLES).join("\n");
  assert.ok(estimateTokens(all) >= Math.max(cl100k(all), o200k(all)), "over all of it, high");
});

Deno.test("estimateTokens counts nothing as nothing and grows with the text", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("hello"), 1);
  assert.ok(estimateTokens("你好世界") >= 4, "a Han character is at least one token");
  assert.ok(estimateTokens("hello world ".repeat(10)) > estimateTokens("hello world"));
});
