/**
 * BERT's WordPiece tokenizer, as Hugging Face `tokenizers` runs it: the BertNormalizer (clean
 * text, space around each Chinese character, accent stripping, lower case — each as the model's
 * `tokenizer.json` says), the BertPreTokenizer (split on whitespace, punctuation isolated), then
 * greedy longest-match-first WordPiece with `##` continuations, `[CLS] … [SEP]` around it.
 * Built from a `tokenizer.json` (HF format) or a plain `vocab.txt` (one token per line).
 * @module
 */
import { z } from "zod";

/** The BertNormalizer's switches (`tokenizer.json` → `normalizer`). */
export interface BertNormalization {
  /** Drop control characters, NUL and U+FFFD; map whitespace to a space. Default true. */
  cleanText?: boolean;
  /** Put spaces around each CJK ideograph, so each is a word. Default true. */
  handleChineseChars?: boolean;
  /** NFD and drop non-spacing marks; default: as `lowercase` (HF's `strip_accents: null`). */
  stripAccents?: boolean;
  /** Lower-case each character (uncased models). Default true. */
  lowercase?: boolean;
}

/** Options of WordPieceTokenizer. */
export interface WordPieceOptions extends BertNormalization {
  /** Longest word tried before it becomes the unknown token; default 100 characters. */
  maxWordChars?: number;
  /** Prefix of a piece inside a word; default `##`. */
  continuingPrefix?: string;
  /** The unknown token; default `[UNK]`. */
  unkToken?: string;
}

/** A batch ready for a BERT-style model: row-major `[batch, length]` ids and mask. */
export interface EncodedBatch {
  ids: BigInt64Array;
  mask: BigInt64Array;
  typeIds: BigInt64Array;
  batch: number;
  length: number;
}

// The CJK blocks of HF tokenizers' `is_chinese_char` (BERT's list; Hangul and kana excluded).
const CJK_RANGES: readonly [number, number][] = [
  [0x4e00, 0x9fff],
  [0x3400, 0x4dbf],
  [0x20000, 0x2a6df],
  [0x2a700, 0x2b73f],
  [0x2b740, 0x2b81f],
  [0x2b920, 0x2ceaf],
  [0xf900, 0xfaff],
  [0x2f800, 0x2fa1f],
];
const CONTROL = /\p{C}/u;
const WHITESPACE = /\s/u;
const MARK = /\p{Mn}/gu;
// Rust's `is_ascii_punctuation` (symbols such as $ + < = > ^ ` | ~ included) or Unicode `P*`.
const PUNCTUATION = /[!-/:-@[-`{-~]|\p{P}/u;

function isChinese(code: number): boolean {
  return CJK_RANGES.some(([lo, hi]) => code >= lo && code <= hi);
}

/** The parts of a `tokenizer.json` we read; anything else in it is ignored. */
const TokenizerJson = z.lazy(() =>
  z.object({
    normalizer: z.object({
      type: z.literal("BertNormalizer"),
      clean_text: z.boolean().optional(),
      handle_chinese_chars: z.boolean().optional(),
      strip_accents: z.boolean().nullable().optional(),
      lowercase: z.boolean().optional(),
    }).nullable().optional(),
    pre_tokenizer: z.object({ type: z.string() }).nullable().optional(),
    model: z.object({
      type: z.literal("WordPiece"),
      unk_token: z.string().optional(),
      continuing_subword_prefix: z.string().optional(),
      max_input_chars_per_word: z.int().positive().optional(),
      vocab: z.record(z.string(), z.int().nonnegative()),
    }),
  })
);

/** A WordPiece vocabulary and the tokenizer over it. */
export class WordPieceTokenizer {
  readonly #vocab: Map<string, number>;
  readonly #norm: Required<BertNormalization>;
  readonly #maxWordChars: number;
  readonly #prefix: string;
  readonly #unkToken: string;
  readonly #special: { cls: number; sep: number; pad: number; unk: number };

  /**
   * From a `vocab.txt` (id = line number). Throws SyntaxError when the vocabulary lacks
   * [CLS], [SEP], [PAD] or the unknown token.
   */
  constructor(vocabText: string, options: WordPieceOptions = {}) {
    const vocab = new Map<string, number>();
    vocabText.split(/\r?\n/).forEach((token, id) => {
      if (token !== "" && !vocab.has(token)) vocab.set(token, id);
    });
    this.#vocab = vocab;
    const lowercase = options.lowercase ?? true;
    this.#norm = {
      cleanText: options.cleanText ?? true,
      handleChineseChars: options.handleChineseChars ?? true,
      stripAccents: options.stripAccents ?? lowercase,
      lowercase,
    };
    this.#maxWordChars = options.maxWordChars ?? 100;
    this.#prefix = options.continuingPrefix ?? "##";
    this.#unkToken = options.unkToken ?? "[UNK]";
    const need = (token: string) => {
      const id = vocab.get(token);
      if (id === undefined) throw new SyntaxError(`WordPiece vocabulary has no "${token}"`);
      return id;
    };
    this.#special = {
      cls: need("[CLS]"),
      sep: need("[SEP]"),
      pad: need("[PAD]"),
      unk: need(this.#unkToken),
    };
  }

  /**
   * From the text of a Hugging Face `tokenizer.json` with a WordPiece model (BERT family).
   * Throws SyntaxError when it is not JSON, not WordPiece, or pre-tokenizes another way.
   */
  static fromTokenizerJson(text: string): WordPieceTokenizer {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new SyntaxError(`tokenizer.json is not JSON: ${(error as Error).message}`);
    }
    const parsed = TokenizerJson.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new SyntaxError(
        `tokenizer.json is not a BERT WordPiece tokenizer: ${
          issue.path.join(".")
        }: ${issue.message}`,
      );
    }
    const { normalizer, pre_tokenizer: pre, model } = parsed.data;
    if (pre && pre.type !== "BertPreTokenizer") {
      throw new SyntaxError(
        `tokenizer.json pre-tokenizes with "${pre.type}", not BertPreTokenizer`,
      );
    }
    const lines: string[] = [];
    for (const [token, id] of Object.entries(model.vocab)) lines[id] = token;
    const lowercase = normalizer?.lowercase ?? true;
    return new WordPieceTokenizer(Array.from(lines, (t) => t ?? "").join("\n"), {
      cleanText: normalizer?.clean_text ?? true,
      handleChineseChars: normalizer?.handle_chinese_chars ?? true,
      stripAccents: normalizer?.strip_accents ?? lowercase,
      lowercase,
      maxWordChars: model.max_input_chars_per_word,
      continuingPrefix: model.continuing_subword_prefix,
      unkToken: model.unk_token,
    });
  }

  /** Number of tokens in the vocabulary. */
  get size(): number {
    return this.#vocab.size;
  }

  /** The normalisation in effect (what the fingerprint of a model depends on). */
  get normalization(): Readonly<Required<BertNormalization>> {
    return this.#norm;
  }

  /** WordPiece tokens of `text` (no [CLS]/[SEP]). */
  tokenize(text: string): string[] {
    return this.#preTokenize(this.normalize(text)).flatMap((word) => this.#wordPieces(word));
  }

  /** Token ids of `text` wrapped in [CLS] … [SEP], truncated to `maxLength` ids in all. */
  encode(text: string, maxLength = 512): number[] {
    if (maxLength < 2) throw new RangeError(`Cannot encode into ${maxLength} tokens`);
    const ids: number[] = [];
    for (const word of this.#preTokenize(this.normalize(text))) {
      for (const piece of this.#wordPieces(word)) {
        ids.push(this.#vocab.get(piece) ?? this.#special.unk);
      }
      if (ids.length >= maxLength - 2) break; // the rest would be cut anyway
    }
    return [this.#special.cls, ...ids.slice(0, maxLength - 2), this.#special.sep];
  }

  /** Encode `texts` padded with [PAD] to the longest, with attention mask and zero type ids. */
  encodeBatch(texts: readonly string[], maxLength = 512): EncodedBatch {
    return this.padBatch(texts.map((t) => this.encode(t, maxLength)));
  }

  /** Pad already encoded rows (see encode) into one batch. */
  padBatch(rows: readonly number[][]): EncodedBatch {
    const length = Math.max(2, ...rows.map((r) => r.length));
    const ids = new BigInt64Array(rows.length * length).fill(BigInt(this.#special.pad));
    const mask = new BigInt64Array(rows.length * length);
    rows.forEach((row, b) => {
      row.forEach((id, i) => {
        ids[b * length + i] = BigInt(id);
        mask[b * length + i] = 1n;
      });
    });
    return {
      ids,
      mask,
      typeIds: new BigInt64Array(rows.length * length),
      batch: rows.length,
      length,
    };
  }

  /** The BertNormalizer: clean, CJK spacing, accents, lower case, in that order. */
  normalize(text: string): string {
    const { cleanText, handleChineseChars, stripAccents, lowercase } = this.#norm;
    let out = "";
    for (const ch of text) {
      const code = ch.codePointAt(0)!;
      if (cleanText) {
        const keep = ch === "\t" || ch === "\n" || ch === "\r";
        if (code === 0 || code === 0xfffd || (!keep && CONTROL.test(ch))) continue;
      }
      const c = cleanText && WHITESPACE.test(ch) ? " " : ch;
      out += handleChineseChars && isChinese(code) ? ` ${c} ` : c;
    }
    if (stripAccents) out = out.normalize("NFD").replace(MARK, "");
    // Character by character, as Rust's char::to_lowercase: no final-sigma rule.
    if (lowercase) out = Array.from(out, (ch) => ch.toLowerCase()).join("");
    return out;
  }

  /** The BertPreTokenizer: whitespace removed, each punctuation character its own word. */
  #preTokenize(text: string): string[] {
    const words: string[] = [];
    let current = "";
    for (const ch of text) {
      if (WHITESPACE.test(ch)) {
        if (current) words.push(current);
        current = "";
      } else if (PUNCTUATION.test(ch)) {
        if (current) words.push(current);
        words.push(ch);
        current = "";
      } else current += ch;
    }
    if (current) words.push(current);
    return words;
  }

  #wordPieces(word: string): string[] {
    const chars = [...word];
    if (chars.length > this.#maxWordChars) return [this.#unkToken];
    const pieces: string[] = [];
    for (let start = 0; start < chars.length;) {
      let end = chars.length;
      let found: string | undefined;
      while (start < end) {
        const piece = (start > 0 ? this.#prefix : "") + chars.slice(start, end).join("");
        if (this.#vocab.has(piece)) {
          found = piece;
          break;
        }
        end--;
      }
      if (found === undefined) return [this.#unkToken];
      pieces.push(found);
      start = end;
    }
    return pieces;
  }
}
