/**
 * Coordinated objects ("火锅和烧烤", "jazz, hiking and sushi") split into one object each, for
 * the rule distiller and for a model's triples alike: "我喜欢吃火锅和烧烤" is two facts. A verb
 * the first part leads with is shared by the parts that lack one ("吃火锅和烧烤" → 吃火锅, 吃烧烤).
 */

const ZH_SPLIT = /以及|还有|和|跟|与|及|、|，|,/u;
const ZH_VERB = /^(吃|喝|看|听|玩|打|踢|弹|做|读|养|去|逛|画|写)(?=.)/u;
const EN_SPLIT = /\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s*&\s*/i;
/** A part that starts like this ends the list: it says something else ("jazz, especially …"). */
const EN_TAIL =
  /^(?:especially|particularly|mostly|mainly|but|though|although|which|who|because|since|so|when|if|then|even|not)\b/i;

/** The parts of a Chinese list; [] when it starts with a separator (a clause, not a list). */
export function splitChinese(text: string): string[] {
  const parts = text.split(ZH_SPLIT).map((p) => p.trim());
  if (parts[0] === "") return [];
  const verb = ZH_VERB.exec(parts[0]!)?.[1];
  return parts.filter((p) => p !== "").map((p) => verb && !ZH_VERB.test(p) ? verb + p : p);
}

/** The parts of an English list, up to a part that changes the subject ("…, especially X"). */
export function splitEnglish(text: string): string[] {
  const parts: string[] = [];
  for (const raw of text.split(EN_SPLIT)) {
    const part = raw.trim();
    if (part === "") continue;
    if (EN_TAIL.test(part)) break;
    parts.push(part);
  }
  return parts;
}

/** Split `object` as a list in whichever script it is written; itself when it is one item. */
export function splitCoordinated(object: string): string[] {
  const parts = /[\p{Script=Han}]/u.test(object) ? splitChinese(object) : splitEnglish(object);
  return parts.length > 0 ? parts : [object];
}
