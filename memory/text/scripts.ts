/**
 * How much of a query is written in a script the space's model was trained for. A model that
 * declares its languages (the catalogue) knows meaning in those only; in another script its
 * vectors are little better than noise (measured: bge-small-zh's English vectors, weighted as
 * for Chinese, put the hybrid below BM25 alone on MADial en), so recall leans on the words
 * there, as it does in a words-only space.
 * @module
 */

/** Scripts by ISO 639-1 language; a language not listed here makes coverage unknown. */
const SCRIPTS: Readonly<Record<string, readonly string[]>> = {
  zh: ["Han"],
  ja: ["Han", "Hiragana", "Katakana"],
  ko: ["Hangul", "Han"],
  ru: ["Cyrillic"],
  uk: ["Cyrillic"],
  bg: ["Cyrillic"],
  el: ["Greek"],
  ar: ["Arabic"],
  fa: ["Arabic"],
  he: ["Hebrew"],
  hi: ["Devanagari"],
  th: ["Thai"],
  ...Object.fromEntries(
    "en de fr es it pt nl sv da no nb fi pl cs sk hu ro tr id ms vi ca hr sl et lv lt".split(" ")
      .map((l) => [l, ["Latin"]]),
  ),
};

/** Scripts written without spaces, where one character is about a word. */
const PER_CHARACTER = new Set(["Han", "Hiragana", "Katakana", "Hangul", "Thai"]);
const MATCHERS = [...new Set(Object.values(SCRIPTS).flat())]
  .map((script) => ({ script, re: new RegExp(`^\\p{Script=${script}}$`, "u") }));
const LETTER = /^\p{L}$/u;

/** The scripts `languages` are written in; undefined when not declared or one is not known. */
export function scriptsOf(languages: readonly string[] | undefined): Set<string> | undefined {
  if (!languages || languages.length === 0) return undefined;
  const scripts = new Set<string>();
  for (const language of languages) {
    const known = SCRIPTS[language.toLowerCase().split(/[-_]/)[0]!];
    if (!known) return undefined;
    known.forEach((s) => scripts.add(s));
  }
  return scripts;
}

/**
 * The share, in [0, 1], of the words of `texts` written in a script of `languages` (a word is
 * a run of letters of one script, or one character of a script written without spaces); 1 when
 * the languages are not declared or not known here, or the texts hold no letters.
 */
export function scriptCoverage(
  texts: readonly string[],
  languages: readonly string[] | undefined,
): number {
  const covered = scriptsOf(languages);
  if (!covered) return 1;
  let words = 0;
  let inside = 0;
  for (const text of texts) {
    let previous: string | undefined;
    for (const ch of text) {
      if (!LETTER.test(ch)) {
        previous = undefined;
        continue;
      }
      const script = MATCHERS.find((m) => m.re.test(ch))?.script ?? "other";
      if (script !== previous || PER_CHARACTER.has(script)) {
        words++;
        if (covered.has(script)) inside++;
      }
      previous = script;
    }
  }
  return words === 0 ? 1 : inside / words;
}
