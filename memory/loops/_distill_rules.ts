/**
 * The rule distiller's patterns, in Chinese and English: name, home, likes, age, job, work
 * place, origin, birthplace, family and pets. Each rule turns one match into facts; an object
 * is cut at the first clause boundary and refused when it is a pronoun, a clause or too long.
 */
import { splitChinese, splitEnglish } from "./_coordination.ts";
import { ageOf } from "./_numbers.ts";
import { EN_KIN, EN_SPECIES, ZH_KIN, ZH_SPECIES } from "./_distill_words.ts";

/** The predicates the distiller writes (Chinese, whatever language the owner spoke). */
export const DISTILLED = {
  name: "姓名",
  home: "居住地",
  likes: "喜好",
  age: "年龄",
  job: "职业",
  workplace: "工作单位",
  origin: "籍贯",
  birthplace: "出生地",
  pet: "宠物",
  species: "物种",
} as const;

/** One fact a rule found; the subject defaults to the speaker (a person). */
export interface DistilledFact {
  subject?: string;
  subjectType?: string;
  predicate: string;
  object: string;
  objectType?: string;
}

/** A pattern and what its match states. */
export interface Rule {
  pattern: RegExp;
  facts(match: RegExpExecArray): DistilledFact[];
}

const ZH_END =
  /[，,。.!！?？;；、：:\s"“”'‘’（）()]|和|跟|而且|并且|但是|但|不过|所以|因为|然后|还|也|啊|呀|呢|吧|哦|噢|嘛|了$/u;
/** ZH_END without the list separators (和, 跟, 、, 还有): a list is cut whole, then split. */
const ZH_LIST_END =
  /[，,。.!！?？;；：:\s"“”'‘’（）()]|而且|并且|但是|但|不过|所以|因为|然后|还(?!有)|也|啊|呀|呢|吧|哦|噢|嘛|了$/u;
const EN_END =
  /[,.;:!?()"]|\s(?:and|but|so|because|since|though|although|which|who|when|while|where|with|at|for|from|if|or|then|now|too|as well|a lot|very much|so much|right now|these days)\b/i;
/** EN_END without "," and "and": a list is cut whole, then split. */
const EN_LIST_END =
  /[.;:!?()"]|\s(?:but|so|because|since|though|although|which|who|when|while|where|with|at|for|from|if|or|then|now|too|as well|a lot|very much|so much|right now|these days)\b/i;

const ZH_PRONOUN = /^(?:你|您|他|她|它|我|这|那|的|了|过|着|什么|谁|哪|怎么|自己|大家)/u;
const ZH_NOT_A_PLACE = /^(?:想|找|做|忙|考虑|准备|努力|认真|好好|拼命|家|家里)/u;
const ZH_NOT_AN_ORIGIN = /^(?:个|一|好|坏|大|小|老|男|女|新|穷|富|这|那|什么|谁|哪)|的/u;
const EN_PRONOUN =
  /^(?:that|this|it|you|your|him|her|them|they|we|us|me|what|how|when|where|why|who|if|whether|not|no|being|there|here)\b/i;
const EN_NOT_A_PLACE =
  /^(?:\d|january|february|march|april|may|june|july|august|september|october|november|december|spring|summer|autumn|fall|winter|the (?:spring|summer|autumn|fall|winter|year|\d))/i;

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

function zhObject(captured: string, maxChars: number, not?: RegExp): string | undefined {
  const object = clean(captured, ZH_END, ZH_PRONOUN, maxChars);
  return object !== undefined && not?.test(object) ? undefined : object;
}

function enObject(captured: string, maxWords: number, not?: RegExp): string | undefined {
  const cut = clean(captured, EN_END, EN_PRONOUN, 80);
  if (cut === undefined || not?.test(cut)) return undefined;
  const words = cut.replace(/^to\s+/i, "").split(/\s+/);
  return words.length > maxWords ? undefined : words.join(" ");
}

/** The items of a Chinese list object ("火锅和烧烤"); [] when the first is no object. */
function zhList(captured: string, maxChars: number): string[] {
  const whole = clean(captured, ZH_LIST_END, ZH_PRONOUN, maxChars * 4);
  if (whole === undefined) return [];
  const parts = splitChinese(whole);
  if (parts.length === 0 || parts.some((p) => ZH_PRONOUN.test(p))) return [];
  return parts.filter((p) => [...p].length <= maxChars);
}

/** The items of an English list object ("jazz, hiking and sushi"). */
function enList(captured: string, maxWords: number): string[] {
  const whole = clean(captured, EN_LIST_END, EN_PRONOUN, 200);
  if (whole === undefined) return [];
  return splitEnglish(whole)
    .map((p) => p.replace(/^to\s+/i, ""))
    .filter((p) => !EN_PRONOUN.test(p) && p.split(/\s+/).length <= maxWords);
}

/** Names in a list ("Mia and Leo"): each must look like a name (a capital first). */
function enNames(captured: string): string[] {
  return enList(captured, 3).map((n) => n.replace(/\s+(?:and|too)$/i, ""))
    .filter((n) => /^\p{Lu}/u.test(n));
}

const fact = (predicate: string, object: string, more: Partial<DistilledFact> = {}) => ({
  predicate,
  object,
  ...more,
});

function one(pattern: RegExp, predicate: string, object: (c: string) => string | undefined): Rule {
  return {
    pattern,
    facts: (m) => {
      const o = object(m[1]!);
      return o === undefined ? [] : [fact(predicate, o)];
    },
  };
}

function many(pattern: RegExp, predicate: string, objects: (c: string) => string[]): Rule {
  return { pattern, facts: (m) => objects(m[1]!).map((o) => fact(predicate, o)) };
}

const alternatives = (words: Record<string, string>) =>
  Object.keys(words).sort((a, b) => b.length - a.length).join("|");
const ZH_KIN_WORDS = alternatives(ZH_KIN);
const EN_KIN_WORDS = alternatives(EN_KIN);
const ZH_PETS = alternatives(ZH_SPECIES);
const EN_PETS = alternatives(EN_SPECIES);
const EN_COUNT = "(?:a|an|one|two|three|four|\\d+)";
const EN_NAME = "(\\p{Lu}[\\p{L}'’-]+(?: \\p{Lu}[\\p{L}'’-]+)?)";

/** Each pet by name (with its species), or the species when no name was given. */
function pets(species: string, names: string[]): DistilledFact[] {
  if (names.length === 0) return [fact(DISTILLED.pet, species, { objectType: "pet" })];
  return names.flatMap((name) => [
    fact(DISTILLED.pet, name, { objectType: "pet" }),
    fact(DISTILLED.species, species, { subject: name, subjectType: "pet", objectType: "species" }),
  ]);
}

function kin(predicate: string | undefined, names: string[]): DistilledFact[] {
  return predicate ? names.map((n) => fact(predicate, n, { objectType: "person" })) : [];
}

const CHINESE: Rule[] = [
  one(/我(?:叫做?|的名字(?:是|叫))(.+)/u, DISTILLED.name, (c) => zhObject(c, 20)),
  one(/我(?:现在)?(?:住在|家在)(.+)/u, DISTILLED.home, (c) => zhObject(c, 30)),
  one(
    /我(?:们)?(?:刚|已经|上个月|去年)?搬(?:到|去)了?(.+)/u,
    DISTILLED.home,
    (c) => zhObject(c, 30),
  ),
  many(
    /我(?:很|也|最|真的|特别|非常)?(?:喜欢|爱)(?!好|人|说|上了)(.+)/u,
    DISTILLED.likes,
    (c) => zhList(c, 30),
  ),
  many(/我的(?:爱好|兴趣)是(.+)/u, DISTILLED.likes, (c) => zhList(c, 30)),
  one(/我的(?:工作|职业)是(.+)/u, DISTILLED.job, (c) => zhObject(c, 30)),
  {
    pattern: /我(?:现在|目前)?在(.+?)(?:当|担任)(.+)/u,
    facts: (m) => {
      const place = zhObject(m[1]!, 30, ZH_NOT_A_PLACE), job = zhObject(m[2]!, 20);
      if (place === undefined || job === undefined) return [];
      return [fact(DISTILLED.workplace, place), fact(DISTILLED.job, job)];
    },
  },
  one(
    /我(?:现在|目前)?在(.+?)(?:上班|工作)/u,
    DISTILLED.workplace,
    (c) => zhObject(c, 30, ZH_NOT_A_PLACE),
  ),
  one(
    /我(?:今年|已经|现在|都)?([0-9]{1,3}|[零一二两三四五六七八九十百]{1,4})(?:周)?岁/u,
    DISTILLED.age,
    ageOf,
  ),
  one(/我(?:来自|是从)(.+?)(?:来的|$)/u, DISTILLED.origin, (c) => zhObject(c, 20)),
  one(/我(?:的)?(?:老家|家乡)(?:在|是)(.+)/u, DISTILLED.origin, (c) => zhObject(c, 20)),
  one(
    /我是(.{2,6}?)人(?=$|[，,。.!！])/u,
    DISTILLED.origin,
    (c) => zhObject(c, 6, ZH_NOT_AN_ORIGIN),
  ),
  one(/我(?:出生在|出生于|生在)(.+)/u, DISTILLED.birthplace, (c) => zhObject(c, 20)),
  {
    pattern: new RegExp(`我(?:的)?(${ZH_KIN_WORDS})(?:叫做?|名叫|的名字(?:是|叫))(.+)`, "u"),
    facts: (m) => kin(ZH_KIN[m[1]!], [zhObject(m[2]!, 10)].flatMap((n) => n ?? [])),
  },
  {
    pattern: new RegExp(
      `我有(?:[一两三四五]|\\d)?(?:个|位)?(${ZH_KIN_WORDS})[，,]?(?:分别)?(?:叫做?|名叫)(.+)`,
      "u",
    ),
    facts: (m) => kin(ZH_KIN[m[1]!], zhList(m[2]!, 10)),
  },
  {
    pattern: new RegExp(
      `我(?:家)?(?:养了|养着|有)(?:[一两三四五]|\\d)?(?:只|条|个|头)?(${ZH_PETS})[，,]?(?:它|她|他|分别)?(?:叫做?|名叫|名字叫)(.+)`,
      "u",
    ),
    facts: (m) => pets(ZH_SPECIES[m[1]!]!, zhList(m[2]!, 10)),
  },
  {
    pattern: new RegExp(
      `我(?:家)?(?:养了|养着|有)(?:[一两三四五]|\\d)(?:只|条|个|头)(${ZH_PETS})(?=$|[。.!！]|了|[，,](?!(?:它|她|他)?(?:叫|名叫|名字叫)))`,
      "u",
    ),
    facts: (m) => pets(ZH_SPECIES[m[1]!]!, []),
  },
  {
    pattern: new RegExp(`我(?:的|家的?)(${ZH_PETS})(?:叫做?|名叫|的名字(?:是|叫))(.+)`, "u"),
    facts: (m) => pets(ZH_SPECIES[m[1]!]!, [zhObject(m[2]!, 10)].flatMap((n) => n ?? [])),
  },
];

const ENGLISH: Rule[] = [
  one(/\bmy name is\s+(.+)/i, DISTILLED.name, (c) => enObject(c, 4)),
  one(/\bi (?:currently |now )?live in\s+(.+)/i, DISTILLED.home, (c) => enObject(c, 6)),
  one(
    /\b(?:i|we) (?:just |recently |finally )?moved to\s+(.+)/i,
    DISTILLED.home,
    (c) => enObject(c, 6, EN_NOT_A_PLACE),
  ),
  many(
    /\bi (?:really |also |do |just )?(?:like|love|enjoy)\s+(.+)/i,
    DISTILLED.likes,
    (c) => enList(c, 6),
  ),
  one(
    /\bi(?: am|'m|’m)\s+([0-9]{1,3}|[a-z]+(?:[- ][a-z]+)?)(?: years?[- ]old\b)/i,
    DISTILLED.age,
    ageOf,
  ),
  one(/\bi work as (?:an? |the )?(.+)/i, DISTILLED.job, (c) => enObject(c, 5)),
  one(
    /\bmy (?:job|occupation|profession) is (?:an? |the )?(.+)/i,
    DISTILLED.job,
    (c) => enObject(c, 5),
  ),
  one(
    /\bi(?:'m|’m| am)? (?:currently |now )?(?:work|working|employed) (?:at|for|by)\s+(.+)/i,
    DISTILLED.workplace,
    (c) => enObject(c, 5),
  ),
  one(/\bi work as .+? (?:at|for)\s+(.+)/i, DISTILLED.workplace, (c) => enObject(c, 5)),
  one(
    /\bi(?:'m|’m| am) (?:originally )?from\s+(.+)/i,
    DISTILLED.origin,
    (c) => enObject(c, 5, EN_NOT_A_PLACE),
  ),
  one(/\bi (?:originally )?come from\s+(.+)/i, DISTILLED.origin, (c) => enObject(c, 5)),
  one(/\bi grew up in\s+(.+)/i, DISTILLED.origin, (c) => enObject(c, 5, EN_NOT_A_PLACE)),
  one(/\bi was born in\s+(.+)/i, DISTILLED.birthplace, (c) => enObject(c, 5, EN_NOT_A_PLACE)),
  {
    pattern: new RegExp(
      `\\b[Mm]y (${EN_KIN_WORDS})(?:'s name is| is called| is named| name is|,)? ${EN_NAME}`,
      "u",
    ),
    facts: (m) => kin(EN_KIN[m[1]!], [m[2]!]),
  },
  {
    pattern: new RegExp(
      `\\bi have ${EN_COUNT} (${EN_KIN_WORDS})(?:,| named| called)\\s+(.+)`,
      "iu",
    ),
    facts: (m) => kin(EN_KIN[m[1]!.toLowerCase()], enNames(m[2]!)),
  },
  {
    pattern: new RegExp(
      `\\b(?:i|we) (?:have|got|adopted|own) ${EN_COUNT} (${EN_PETS})(?:,| named| called)\\s+(.+)`,
      "iu",
    ),
    facts: (m) => pets(EN_SPECIES[m[1]!.toLowerCase()]!, enNames(m[2]!)),
  },
  {
    pattern: new RegExp(
      `\\b(?:i|we) (?:have|got|adopted|own) ${EN_COUNT} (${EN_PETS})(?=\\s*(?:$|[.!;]))`,
      "iu",
    ),
    facts: (m) => pets(EN_SPECIES[m[1]!.toLowerCase()]!, []),
  },
  {
    pattern: new RegExp(
      `\\b[Mm]y (${EN_PETS})(?:'s name is| is called| is named| name is|,)? ${EN_NAME}`,
      "u",
    ),
    facts: (m) => pets(EN_SPECIES[m[1]!]!, [m[2]!]),
  },
];

/** Every rule, Chinese first. */
export const RULES: readonly Rule[] = [...CHINESE, ...ENGLISH];
