/** The calibrated token estimate: what every model without a known tokenizer is counted by. */

/**
 * A tokenizer-free estimate, calibrated to err high: measured against cl100k and o200k (the
 * OpenAI tokenizers; Llama 3's is cl100k-like) on English and Chinese prose, docs, code, JSON
 * schemas, prompt timelines, Japanese, Korean, Russian, German, Hindi, Thai, emoji and URLs, it
 * lands between 0.97× and 1.45× of the larger of the two (tests/core/prompt/estimate_test.ts).
 * A Latin word costs one token per six letters (an accented letter as three), a digit run one
 * per two and a half digits (tokenizers split numbers into groups of three or fewer), an ASCII
 * punctuation run one per three marks, a whitespace run with a newline or of two or more
 * characters one; a CJK character 1.3, a Hangul syllable 1.6, a run of Greek, Cyrillic, Hebrew
 * or Arabic letters one per 1.7 letters, anything else 1.4 per UTF-16 unit.
 */
export function estimateTokens(text: string): number {
  if (text.length < MEMO_MIN) return estimateRuns(text);
  const known = memo.get(text);
  if (known !== undefined) return known;
  const tokens = estimateRuns(text);
  memo.set(text, tokens);
  memoChars += text.length;
  for (const old of memo.keys()) {
    if (memoChars <= MEMO_CHARS) break;
    memo.delete(old);
    memoChars -= old.length;
  }
  return tokens;
}

/**
 * Counts of recent long texts: a turn counts the same persona, lines and prompt several times
 * (fitting, pruning, recording), and looking a string up costs less than walking it again.
 */
const memo = new Map<string, number>();
let memoChars = 0;
const MEMO_MIN = 256;
const MEMO_CHARS = 1_000_000;

function estimateRuns(text: string): number {
  const kinds = KINDS;
  let tokens = 0;
  let weighted = 0;
  let run = -1;
  let length = 0;
  let newline = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const kind = kinds[c]!;
    if (kind !== run) {
      if (length > 0) tokens += runTokens(run, length, newline);
      run = kind;
      length = 0;
      newline = false;
    }
    if (kind >= HANGUL) weighted += WEIGHTS[kind - HANGUL]!;
    else if (kind === LETTER && c > 0x7f) length += 3; // an accented letter splits words more
    else {
      length++;
      if (c === 10) newline = true;
    }
  }
  if (length > 0) tokens += runTokens(run, length, newline);
  return tokens + Math.ceil(weighted);
}

const LETTER = 0;
const DIGIT = 1;
const SPACE = 2;
const PUNCT = 3;
const ALPHABET = 4;
const HANGUL = 5;
const CJK = 6;
const OTHER = 7;
/** Tokens per character of the kinds counted one character at a time (HANGUL, CJK, OTHER). */
const WEIGHTS = [1.6, 1.3, 1.4];

/** The kind of every UTF-16 code unit (a table: this runs over every prompt several times). */
const KINDS: Uint8Array = (() => {
  const kinds = new Uint8Array(0x10000).fill(OTHER);
  const set = (from: number, to: number, kind: number) => kinds.fill(kind, from, to + 1);
  set(0, 0x7f, PUNCT);
  set(0x41, 0x5a, LETTER);
  set(0x61, 0x7a, LETTER);
  set(0x30, 0x39, DIGIT);
  for (const c of [9, 10, 13, 32]) kinds[c] = SPACE;
  set(0xc0, 0x24f, LETTER);
  kinds[0xd7] = OTHER;
  kinds[0xf7] = OTHER;
  set(0x370, 0x6ff, ALPHABET);
  set(0x3000, 0x30ff, CJK);
  set(0x3400, 0x4dbf, CJK);
  set(0x4e00, 0x9fff, CJK);
  set(0xf900, 0xfaff, CJK);
  set(0xff00, 0xffef, CJK);
  set(0xac00, 0xd7af, HANGUL);
  return kinds;
})();

function runTokens(kind: number, length: number, newline: boolean): number {
  switch (kind) {
    case LETTER:
      return Math.ceil(length / 6);
    case DIGIT:
      return Math.ceil(length / 2.5);
    case SPACE:
      return newline || length > 1 ? 1 : 0;
    case PUNCT:
      return Math.ceil(length / 3);
    default: // ALPHABET
      return Math.ceil(length / 1.7);
  }
}
