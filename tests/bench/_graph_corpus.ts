/** The synthetic graph of the graph and recall benches: names (30 % Chinese), relations. */
import type { GraphDB } from "../../memory/mod.ts";

const SYLLABLES = ("ka to mi ra ne su lo vi da ke ri mo sa tu ne po li an el or ba fe gi hu " +
  "jo ku ma no pe qu ru se ti ul ve wo xi ya ze").split(" ");
const HAN =
  ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程" +
    "苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱")
    .split("");
/** Predicates the relations are drawn from. */
export const PREDICATES =
  ("knows likes lives_in works_at friend_of member_of visited owns 喜欢 认识 " +
    "居住地 职业 part_of related_to sibling_of mentions has speaks colleague_of located_in")
    .split(" ");

/** A seeded linear congruential generator of numbers in [0, 1). */
export function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** One item of `list`, drawn by `random`. */
export function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

/** `count` distinct entity names, 30 % Chinese. */
export function names(count: number, random: () => number): string[] {
  const seen = new Set<string>();
  while (seen.size < count) {
    const name = random() < 0.3
      ? Array.from({ length: 2 + Math.floor(random() * 2) }, () => pick(random, HAN)).join("") +
        pick(random, HAN)
      : `${pick(random, SYLLABLES)}${pick(random, SYLLABLES)}${pick(random, SYLLABLES)} ` +
        `${pick(random, SYLLABLES)}${pick(random, SYLLABLES)}`;
    seen.add(name);
  }
  return [...seen];
}

/** `count` random relations among entities `ids`, stored in chunks of 100,000. */
export function addRelations(
  graph: GraphDB,
  ids: readonly number[],
  count: number,
  random: () => number,
): void {
  for (let done = 0; done < count; done += 100_000) {
    graph.bulkRelations(Array.from({ length: Math.min(100_000, count - done) }, () => ({
      source: pick(random, ids),
      target: pick(random, ids),
      type: pick(random, PREDICATES),
      validFrom: Date.UTC(2025, 0, 1) + Math.floor(random() * 3e10),
    })));
  }
}
