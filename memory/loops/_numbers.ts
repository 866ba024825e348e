/** Numerals the distiller reads: Chinese up to the hundreds, English up to ninety-nine. */

const ZH_DIGITS: Record<string, number> = {
  零: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};

/** The value of a Chinese numeral up to 999 (三十, 二十五, 两百零三); undefined when it is not one. */
export function chineseNumber(text: string): number | undefined {
  let total = 0;
  let current = -1;
  for (const ch of text) {
    if (ch in ZH_DIGITS) {
      current = ZH_DIGITS[ch]!;
    } else if (ch === "十" || ch === "百") {
      const unit = ch === "十" ? 10 : 100;
      total += (current < 0 ? 1 : current) * unit;
      current = -1;
    } else return undefined;
  }
  return total + Math.max(current, 0);
}

const ONES = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
];
const TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];

/** The value of an English number word ("twenty-five"); undefined when it is not one. */
export function englishNumber(text: string): number | undefined {
  let total = 0;
  for (const word of text.toLowerCase().split(/[- ]/)) {
    const one = ONES.indexOf(word);
    const ten = TENS.indexOf(word);
    if (one >= 0) total += one;
    else if (ten >= 2) total += ten * 10;
    else return undefined;
  }
  return total;
}

/** An age from digits or words in either language, when it is a plausible one. */
export function ageOf(text: string): string | undefined {
  const n = /^[0-9]+$/.test(text)
    ? Number(text)
    : /[\p{Script=Han}]/u.test(text)
    ? chineseNumber(text)
    : englishNumber(text);
  return n !== undefined && n > 0 && n < 150 ? String(n) : undefined;
}
