/**
 * BERT's WordPiece tokenizer over a `vocab.txt` (one token per line, id = line number):
 * basic tokenization (clean, optional lower case + accent strip, punctuation and each CJK
 * character split off), then greedy longest-match-first with `##` continuations.
 * @module
 */

/** Options of WordPieceTokenizer. */
export interface WordPieceOptions {
  /** Lower-case and strip accents, as uncased models expect; default true. */
  lowercase?: boolean;
  /** Longest word tried before it becomes `[UNK]`; default 100 characters. */
  maxWordChars?: number;
}

/** A batch ready for a BERT-style model: row-major `[batch, length]` ids and mask. */
export interface EncodedBatch {
  ids: BigInt64Array;
  mask: BigInt64Array;
  typeIds: BigInt64Array;
  batch: number;
  length: number;
}

const CJK = /[\u4E00-\u9FFF\u3400-\u4DBF\uF900-\uFAFF\u{20000}-\u{2FA1F}]/u;
const PUNCT = /[\p{P}\p{S}]/u;

/** A WordPiece vocabulary and the tokenizer over it. */
export class WordPieceTokenizer {
  readonly #vocab: Map<string, number>;
  readonly #lowercase: boolean;
  readonly #maxWordChars: number;
  readonly #special: { cls: number; sep: number; pad: number; unk: number };

  /** Throws SyntaxError when `vocabText` lacks [CLS], [SEP], [PAD] or [UNK]. */
  constructor(vocabText: string, options: WordPieceOptions = {}) {
    this.#vocab = new Map();
    vocabText.split(/\r?\n/).forEach((token, id) => {
      if (token !== "" && !this.#vocab.has(token)) this.#vocab.set(token, id);
    });
    const need = (token: string) => {
      const id = this.#vocab.get(token);
      if (id === undefined) throw new SyntaxError(`WordPiece vocabulary has no "${token}"`);
      return id;
    };
    this.#special = {
      cls: need("[CLS]"),
      sep: need("[SEP]"),
      pad: need("[PAD]"),
      unk: need("[UNK]"),
    };
    this.#lowercase = options.lowercase ?? true;
    this.#maxWordChars = options.maxWordChars ?? 100;
  }

  /** Number of tokens in the vocabulary. */
  get size(): number {
    return this.#vocab.size;
  }

  /** WordPiece tokens of `text` (no [CLS]/[SEP]). */
  tokenize(text: string): string[] {
    return this.#basic(text).flatMap((word) => this.#wordPieces(word));
  }

  /** Token ids of `text` wrapped in [CLS] … [SEP], truncated to `maxLength` ids in all. */
  encode(text: string, maxLength = 512): number[] {
    if (maxLength < 2) throw new RangeError(`Cannot encode into ${maxLength} tokens`);
    const ids = this.tokenize(text).map((t) => this.#vocab.get(t) ?? this.#special.unk);
    return [this.#special.cls, ...ids.slice(0, maxLength - 2), this.#special.sep];
  }

  /** Encode `texts` padded with [PAD] to the longest, with attention mask and zero type ids. */
  encodeBatch(texts: readonly string[], maxLength = 512): EncodedBatch {
    const rows = texts.map((t) => this.encode(t, maxLength));
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

  #basic(text: string): string[] {
    let clean = "";
    for (const ch of text) {
      const code = ch.codePointAt(0)!;
      if (code === 0 || code === 0xfffd || (/\p{Cc}/u.test(ch) && !/\s/.test(ch))) continue;
      clean += CJK.test(ch) ? ` ${ch} ` : /\s/.test(ch) ? " " : ch;
    }
    if (this.#lowercase) clean = clean.toLowerCase().normalize("NFD").replace(/\p{Mn}/gu, "");
    const words: string[] = [];
    for (const chunk of clean.split(" ")) {
      let current = "";
      for (const ch of chunk) {
        if (PUNCT.test(ch)) {
          if (current) words.push(current);
          words.push(ch);
          current = "";
        } else current += ch;
      }
      if (current) words.push(current);
    }
    return words;
  }

  #wordPieces(word: string): string[] {
    const chars = [...word];
    if (chars.length > this.#maxWordChars) return ["[UNK]"];
    const pieces: string[] = [];
    for (let start = 0; start < chars.length;) {
      let end = chars.length;
      let found: string | undefined;
      while (start < end) {
        const piece = (start > 0 ? "##" : "") + chars.slice(start, end).join("");
        if (this.#vocab.has(piece)) {
          found = piece;
          break;
        }
        end--;
      }
      if (found === undefined) return ["[UNK]"];
      pieces.push(found);
      start = end;
    }
    return pieces;
  }
}
