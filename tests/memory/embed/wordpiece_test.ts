import assert from "node:assert/strict";
import { WordPieceTokenizer } from "../../../memory/mod.ts";

const SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"];

function tokenizerJson(vocab: string[], normalizer: Record<string, unknown>, model = {}) {
  return JSON.stringify({
    normalizer: { type: "BertNormalizer", ...normalizer },
    pre_tokenizer: { type: "BertPreTokenizer" },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      vocab: Object.fromEntries([...SPECIAL, ...vocab].map((t, i) => [t, i])),
      ...model,
    },
  });
}

Deno.test("WordPieceTokenizer normalises as BertNormalizer: clean text, CJK apart, accents, case", () => {
  const uncased = new WordPieceTokenizer(SPECIAL.join("\n"));
  assert.equal(uncased.normalize("Àpple\u200b CAFÉ\u0000\ufffd\u0007\tok"), "apple cafe ok");
  assert.equal(uncased.normalize("我爱猫"), " 我  爱  猫 ");
  assert.equal(uncased.normalize("ΣΊΣΥΦΟΣ"), "σισυφοσ"); // per character: no final-sigma rule
  const cased = new WordPieceTokenizer(SPECIAL.join("\n"), { lowercase: false });
  assert.equal(cased.normalize("Àpple"), "Àpple"); // strip_accents follows lowercase
  const stripOnly = new WordPieceTokenizer(SPECIAL.join("\n"), {
    lowercase: false,
    stripAccents: true,
  });
  assert.equal(stripOnly.normalize("Àpple"), "Apple");
});

Deno.test("WordPieceTokenizer isolates ASCII symbols and Unicode punctuation, not other symbols", () => {
  const t = new WordPieceTokenizer([...SPECIAL, "$", "5", "+", "€5", "，", "好"].join("\n"));
  assert.deepEqual(t.tokenize("$5+€5，好"), ["$", "5", "+", "€5", "，", "好"]);
});

Deno.test("WordPieceTokenizer.fromTokenizerJson follows the file's normalizer and model settings", () => {
  const vocab = ["hello", "##wo", "##rld", "Hello", "x"];
  const cased = WordPieceTokenizer.fromTokenizerJson(tokenizerJson(vocab, { lowercase: false }));
  assert.deepEqual(cased.tokenize("Hello helloworld"), ["Hello", "hello", "##wo", "##rld"]);
  assert.deepEqual(cased.encode("Hello", 8), [2, 7, 3]);
  const lower = WordPieceTokenizer.fromTokenizerJson(tokenizerJson(vocab, { lowercase: true }));
  assert.deepEqual(lower.tokenize("Hello"), ["hello"]);
  const short = WordPieceTokenizer.fromTokenizerJson(
    tokenizerJson(vocab, {}, { max_input_chars_per_word: 3 }),
  );
  assert.deepEqual(short.tokenize("x hello"), ["x", "[UNK]"]);
  assert.equal(short.size, SPECIAL.length + vocab.length);
});

Deno.test("WordPieceTokenizer.fromTokenizerJson refuses what is not a BERT WordPiece tokenizer", () => {
  assert.throws(() => WordPieceTokenizer.fromTokenizerJson("{"), /not JSON/);
  const bpe = JSON.stringify({ model: { type: "BPE", vocab: {} } });
  assert.throws(() => WordPieceTokenizer.fromTokenizerJson(bpe), /not a BERT WordPiece/);
  const metaspace = JSON.parse(tokenizerJson([], {}));
  metaspace.pre_tokenizer = { type: "Metaspace" };
  assert.throws(
    () => WordPieceTokenizer.fromTokenizerJson(JSON.stringify(metaspace)),
    /pre-tokenizes with "Metaspace"/,
  );
  const noCls = JSON.stringify({ model: { type: "WordPiece", vocab: { "[UNK]": 0 } } });
  assert.throws(() => WordPieceTokenizer.fromTokenizerJson(noCls), /has no "\[CLS\]"/);
});
