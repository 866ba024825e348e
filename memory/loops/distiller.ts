/**
 * The rule distiller (ARCHITECTURE.md "Memory Flow" ⑤, "Distillation Pipeline"): personal facts
 * a person states about themself, matched by pattern in Chinese and English, as triples about
 * the speaker. Pure functions; memory/loops/heartbeat.ts runs it over the text log every 10 minutes.
 *
 * Deliberately conservative: questions ("我叫什么？", "do I like jazz?") state nothing; negations
 * never match ("我不喜欢", "I don't like"); an object that is a pronoun or a clause ("I like that
 * you…", "我爱你", "I like it") is not a preference worth keeping and yields no triple.
 */
import type { Triple } from "../../core/mod.ts";

/** The predicates the distiller writes. */
export const DISTILLED = {
  name: "姓名",
  home: "居住地",
  likes: "喜好",
  age: "年龄",
  job: "职业",
} as const;

/** Options of distillText. */
export interface DistillOptions {
  /** The speaking person; default "owner". */
  subject?: string;
  turnIds?: readonly string[];
  /** Confidence of a rule fact; default 0.9. */
  confidence?: number;
}

interface Rule {
  pattern: RegExp;
  predicate: string;
  /** Turns the captured text into the object; undefined drops the match. */
  object(captured: string): string | undefined;
}

const ZH_END =
  /[，,。.!！?？;；、：:\s"“”'‘’（）()]|和|跟|而且|并且|但是|但|不过|所以|因为|然后|还|也|啊|呀|呢|吧|哦|噢|嘛|了$/u;
const EN_END =
  /[,.;:!?()"]|\s(?:and|but|so|because|since|though|although|which|who|when|while|where|with|at|for|from|if|or|then|now|too|as well|a lot|very much|so much|right now|these days)\b/i;

const ZH_PRONOUN = /^(?:你|您|他|她|它|我|这|那|的|了|过|着|什么|谁|哪|怎么|自己|大家)/u;
const ZH_NOT_A_PLACE = /^(?:想|找|做|忙|考虑|准备|努力|认真|好好|拼命)/u;
const EN_PRONOUN =
  /^(?:that|this|it|you|your|him|her|them|they|we|us|me|what|how|when|where|why|who|if|whether|not|no|being|there|here)\b/i;

const RULES: readonly Rule[] = [
  zh(/我(?:叫做?|的名字(?:是|叫))(.+)/u, DISTILLED.name, 20),
  zh(/我(?:现在)?(?:住在|家在)(.+)/u, DISTILLED.home, 30),
  zh(/我(?:很|也|最|真的|特别|非常)?(?:喜欢|爱)(?!好|人|说|上了)(.+)/u, DISTILLED.likes, 30),
  zh(/我的(?:爱好|兴趣)是(.+)/u, DISTILLED.likes, 30),
  zh(/我的(?:工作|职业)是(.+)/u, DISTILLED.job, 30),
  {
    pattern: /我(?:现在|目前)?在(.+?)(?:上班|工作)/u,
    predicate: DISTILLED.job,
    object: (c) => ZH_NOT_A_PLACE.test(c) ? undefined : clean(c, ZH_END, ZH_PRONOUN, 30),
  },
  {
    pattern: /我(?:今年|已经|现在|都)?([0-9]{1,3}|[零一二两三四五六七八九十百]{1,4})(?:周)?岁/u,
    predicate: DISTILLED.age,
    object: (c) => {
      const n = /^[0-9]+$/.test(c) ? Number(c) : chineseNumber(c);
      return n !== undefined && n > 0 && n < 150 ? String(n) : undefined;
    },
  },
  en(/\bmy name is\s+(.+)/i, DISTILLED.name, 4),
  en(/\bi (?:currently |now )?live in\s+(.+)/i, DISTILLED.home, 6),
  en(/\bi (?:really |also |do |just )?(?:like|love|enjoy)\s+(.+)/i, DISTILLED.likes, 6),
  {
    pattern: /\bi(?: am|'m|’m)\s+([0-9]{1,3}|[a-z]+(?:[- ][a-z]+)?)(?: years?[- ]old\b)/i,
    predicate: DISTILLED.age,
    object: (c) => {
      const n = /^[0-9]+$/.test(c) ? Number(c) : englishNumber(c);
      return n !== undefined && n > 0 && n < 150 ? String(n) : undefined;
    },
  },
  en(/\bi work as (?:an? |the )?(.+)/i, DISTILLED.job, 5),
];

/** The facts `text` states about its speaker, one triple per match, in rule order. */
export function distillText(text: string, options: DistillOptions = {}): Triple[] {
  const subject = options.subject?.trim() || "owner";
  const triples: Triple[] = [];
  const seen = new Set<string>();
  for (const sentence of splitSentences(text)) {
    if (isQuestion(sentence)) continue;
    for (const rule of RULES) {
      const captured = rule.pattern.exec(sentence)?.[1];
      if (captured === undefined) continue;
      const object = rule.object(captured);
      if (object === undefined) continue;
      const key = `${rule.predicate}\u0000${object}`;
      if (seen.has(key)) continue;
      seen.add(key);
      triples.push({
        subject,
        predicate: rule.predicate,
        object,
        subjectType: "person",
        confidence: options.confidence ?? 0.9,
        sentence: sentence.trim(),
        turnIds: [...(options.turnIds ?? [])],
      });
    }
  }
  return triples;
}

/** Sentences of `text`: split at end punctuation and line breaks. */
export function splitSentences(text: string): string[] {
  return text.split(/(?<=[。！？!?；;\n])|(?<=\.)\s+/u).map((s) => s.trim()).filter((s) =>
    s !== ""
  );
}

/** The value of a Chinese numeral up to 999 (三十, 二十五, 两百零三); undefined when it is not one. */
export function chineseNumber(text: string): number | undefined {
  const digits: Record<string, number> = {
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
  let total = 0;
  let current = -1;
  for (const ch of text) {
    if (ch in digits) {
      current = digits[ch]!;
    } else if (ch === "十" || ch === "百") {
      const unit = ch === "十" ? 10 : 100;
      total += (current < 0 ? 1 : current) * unit;
      current = -1;
    } else return undefined;
  }
  return total + Math.max(current, 0);
}

function englishNumber(text: string): number | undefined {
  const ones = [
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
  const tens = [
    "",
    "",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
  ];
  let total = 0;
  for (const word of text.toLowerCase().split(/[- ]/)) {
    const one = ones.indexOf(word);
    const ten = tens.indexOf(word);
    if (one >= 0) total += one;
    else if (ten >= 2) total += ten * 10;
    else return undefined;
  }
  return total;
}

function isQuestion(sentence: string): boolean {
  return /[?？]\s*$/u.test(sentence) ||
    /(?:吗|么|什么|谁|哪里|哪儿|多少|几岁)\s*[。.]?$/u.test(sentence) ||
    /^(?:do|does|did|am|is|are|what|who|where|how|can|could|would|should)\b/i.test(sentence);
}

function zh(pattern: RegExp, predicate: string, maxChars: number): Rule {
  return { pattern, predicate, object: (c) => clean(c, ZH_END, ZH_PRONOUN, maxChars) };
}

function en(pattern: RegExp, predicate: string, maxWords: number): Rule {
  return {
    pattern,
    predicate,
    object: (c) => {
      const cut = clean(c, EN_END, EN_PRONOUN, 80);
      if (cut === undefined) return undefined;
      const words = cut.replace(/^to\s+/i, "").split(/\s+/);
      return words.length > maxWords ? undefined : words.join(" ");
    },
  };
}

/** Cut `captured` at the first boundary; refuse empty, pronoun-led or overlong objects. */
function clean(
  captured: string,
  end: RegExp,
  pronoun: RegExp,
  maxChars: number,
): string | undefined {
  const match = end.exec(captured);
  const object = (match ? captured.slice(0, match.index) : captured).trim();
  if (object === "" || pronoun.test(object) || [...object].length > maxChars) return undefined;
  return object;
}
