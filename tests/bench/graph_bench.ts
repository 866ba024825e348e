/**
 * Graph figures: `graph_recall_p50_ms_1m` / `graph_recall_p95_ms_1m` (keyword recall,
 * depth 2, limit 50, over 100,000 entities and 1,000,000 relations in memory/graph.db on disk),
 * and `graph_commit_1k_ms` (one commit of 1,000 triples into that graph, entity vectors on).
 * The prompt figures are in token_bench.ts.
 */
import { join } from "node:path";
import type { Triple } from "../../core/mod.ts";
import { systemClock } from "../../adapters/mod.ts";
import { createHashEmbedder, GraphDB } from "../../memory/mod.ts";
import { type Figure, quantile, round } from "./_figure.ts";

const SYLLABLES = ("ka to mi ra ne su lo vi da ke ri mo sa tu ne po li an el or ba fe gi hu " +
  "jo ku ma no pe qu ru se ti ul ve wo xi ya ze").split(" ");
const HAN =
  ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程" +
    "苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱")
    .split("");
const PREDICATES = ("knows likes lives_in works_at friend_of member_of visited owns 喜欢 认识 " +
  "居住地 职业 part_of related_to sibling_of mentions has speaks colleague_of located_in")
  .split(" ");

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function names(count: number, random: () => number): string[] {
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

async function graphFigures(): Promise<Record<string, Figure>> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-bench-graph-" });
  const random = rng(11);
  const entityNames = names(100_000, random);
  const graph = GraphDB.open({
    path: join(dir, "graph.db"),
    clock: systemClock,
    embedder: createHashEmbedder(),
  });
  try {
    const t0 = performance.now();
    const ids = graph.bulkEntities(entityNames.map((name) => ({
      name,
      type: random() < 0.3 ? "person" : "entity",
      mentions: 1 + Math.floor(1 / (random() + 0.01)),
    })));
    for (let chunk = 0; chunk < 10; chunk++) {
      graph.bulkRelations(Array.from({ length: 100_000 }, () => ({
        source: pick(random, ids),
        target: pick(random, ids),
        type: pick(random, PREDICATES),
        validFrom: Date.UTC(2025, 0, 1) + Math.floor(random() * 3e10),
      })));
    }
    const buildS = (performance.now() - t0) / 1000;

    const samples: number[] = [];
    for (let i = 0; i < 300; i++) {
      const name = pick(random, entityNames);
      const keyword = name.includes(" ") ? name.split(" ")[0]! : name.slice(0, 2);
      const other = pick(random, entityNames).split(" ")[0]!;
      const start = performance.now();
      await graph.recall({ keywords: [keyword, other], depth: 2, limit: 50 });
      samples.push(performance.now() - start);
    }

    const triples: Triple[] = Array.from({ length: 1000 }, (_, i) => ({
      subject: random() < 0.5 ? pick(random, entityNames) : `new person ${i}`,
      predicate: pick(random, PREDICATES),
      object: random() < 0.5 ? pick(random, entityNames) : `new thing ${i % 300}`,
      sentence: `bench sentence ${i}`,
      turnIds: [`t${i}`],
    }));
    const c0 = performance.now();
    await graph.commit(triples);
    const commitMs = performance.now() - c0;
    return {
      graph_recall_p50_ms_1m: { value: round(quantile(samples, 0.5), 2), unit: "ms" },
      graph_recall_p95_ms_1m: { value: round(quantile(samples, 0.95), 2), unit: "ms" },
      graph_commit_1k_ms: { value: round(commitMs, 1), unit: "ms" },
      graph_build_1m_s: { value: round(buildS, 1), unit: "s" },
    };
  } finally {
    graph.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The figures of this module. */
export const figures = {
  "graph_recall_p50_ms_1m": graphFigures,
  "graph_recall_p95_ms_1m": graphFigures,
  "graph_commit_1k_ms": graphFigures,
  "graph_build_1m_s": graphFigures,
};
