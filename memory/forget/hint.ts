/**
 * A redactor for one forget's sweep of the daemon's log and the corrupt copies (home_files.ts):
 * the keyed-hash matcher (matcher.ts) reads a few megabytes a second, and the logs may hold
 * 60 MB. The plain names of this forget (the name asked, its entity's name and aliases) pick the texts worth matching: a text without the longest word of any of them skips
 * the matcher; the others go through it, which blanks every forgotten name in them. A forget run
 * again after a crash knows only the name asked (its entity is gone), so it sweeps with
 * `everyText`: only the hashes still know the aliases its first run tombstoned.
 */
import type { TextRedactor } from "../../core/mod.ts";
import { foldName } from "./matcher.ts";

/** A TextRedactor with the cheap test in front of it. */
export interface SweepRedactor extends TextRedactor {
  /** False when `text` cannot mention a name of this forget (true may still be none). */
  mayMention(text: string): boolean;
}

/** `redactor`, asked only about texts that may hold one of `names`. */
export function sweepRedactor(redactor: TextRedactor, names: readonly string[]): SweepRedactor {
  const words = names.map((n) => loose(longestWord(foldName(n)))).filter((w) => w !== "");
  const mayMention = (text: string) => {
    if (words.length === 0 || text === "") return false;
    const folded = loose(text);
    return words.some((w) => folded.includes(w));
  };
  return {
    mayMention,
    mentions: (text) => mayMention(text) && redactor.mentions(text),
    redact: (text) => mayMention(text) ? redactor.redact(text) : text,
  };
}

/**
 * The matcher folds each character alone (NFKC, lower case); folding the whole text at once can
 * differ (a base letter and its combining accent compose; a final sigma), so both sides are
 * folded this looser way and compared as a superset.
 */
function loose(text: string): string {
  return text.normalize("NFKC").toLowerCase().replaceAll("ς", "σ");
}

function longestWord(folded: string): string {
  return folded.split(" ").reduce((a, b) => ([...b].length > [...a].length ? b : a), "");
}

/** Every text through the matcher (a forget run again: see above). */
export function everyText(redactor: TextRedactor): SweepRedactor {
  return {
    mayMention: (text) => text !== "",
    mentions: (text) => redactor.mentions(text),
    redact: (text) => redactor.redact(text),
  };
}
