/**
 * Graph and prompt figures: `graph_recall_p50_ms_1m` / `graph_recall_p95_ms_1m` (keyword recall,
 * depth 2, limit 50, over 100,000 entities and 1,000,000 relations in memory/graph.db on disk),
 * `graph_commit_1k_ms` (one commit of 1,000 triples into that graph, entity vectors on), and
 * `prompt_tokens_per_turn` (the system prompt of a realistic turn with an 8k-token window).
 */
import { join } from "node:path";
import {
  buildSystemPrompt,
  documentsSection,
  estimateTokens,
  RecentContext,
  silentLogger,
  type Triple,
} from "../../core/mod.ts";
import { systemClock } from "../../adapters/mod.ts";
import {
  createHashEmbedder,
  createTextAnalyzer,
  DEFAULT_PERSONA,
  DocStore,
  GraphDB,
  GraphIndexer,
} from "../../memory/mod.ts";
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

const PEOPLE = ["Ann", "Bo", "Cy", "Dee", "小明", "小红", "妈妈", "爸爸", "Erik", "Fay"];
const THINGS = [
  "tea",
  "jazz",
  "Oslo",
  "Bergen",
  "piano",
  "football",
  "北京",
  "上海",
  "cats",
  "garden",
  "nurse",
  "teacher",
  "chess",
  "coffee",
  "hiking",
  "Acme",
  "school",
  "火锅",
  "跑步",
  "书法",
];

/** A home with a few hundred facts, 200 documents and a full window; one turn's prompt. */
async function promptTokens(): Promise<Record<string, Figure>> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-bench-prompt-" });
  const random = rng(5);
  const embedder = createHashEmbedder();
  const analyzer = await createTextAnalyzer();
  const graph = GraphDB.open({ path: ":memory:", clock: systemClock, embedder });
  const docs = await DocStore.open({
    dir,
    embedder,
    analyzer,
    clock: systemClock,
    logger: silentLogger,
  });
  try {
    const triples: Triple[] = [];
    for (let i = 0; i < 300; i++) {
      triples.push({
        subject: pick(random, PEOPLE),
        predicate: pick(random, PREDICATES),
        object: random() < 0.3
          ? pick(random, PEOPLE)
          : `${pick(random, THINGS)}${i % 7 === 0 ? ` ${i}` : ""}`,
      });
    }
    await graph.commit(triples);
    await docs.insertMany(
      Array.from({ length: 200 }, (_, i) => ({
        content: `On day ${i} ${pick(random, PEOPLE)} talked about ${pick(random, THINGS)} and ` +
          `${pick(random, THINGS)}; ${pick(random, PEOPLE)} said it was ${
            pick(random, ["fun", "hard", "新鲜"])
          }.`,
        source: "cli",
      })),
      { sync: false },
    );
    const context = new RecentContext({ capacity: 200 });
    for (let i = 0; i < 200; i++) {
      context.append({
        id: `e${i}`,
        role: i % 2 === 0 ? "user" : "agent",
        source: "cli",
        channel: "cli",
        input: i % 2 === 0
          ? `Question ${i} about ${pick(random, THINGS)} and ${pick(random, PEOPLE)}?`
          : undefined,
        response: i % 2 === 1
          ? `Answer ${i}: ${"some words ".repeat(8)}${pick(random, THINGS)}.`
          : undefined,
        timestamp: Date.UTC(2026, 0, 1) + i * 60_000,
      });
    }
    const indexer = new GraphIndexer({ graph, analyzer, embedder });
    const text =
      "Ann and 小明 want to plan the weekend: does Ann still like jazz, and where does she live?";
    const index = await indexer.section(text);
    const hits = await docs.query(text, { k: 3, touch: true });
    const related = documentsSection(hits.map((h) => h.document));
    const prompt = buildSystemPrompt({
      persona: DEFAULT_PERSONA,
      now: Date.UTC(2026, 0, 2),
      memory: [related, index].filter((s) => s !== undefined),
      notes: [],
      context,
      currentEventId: "e199",
      maxContextTokens: 8192,
      count: estimateTokens,
    });
    const memoryText = prompt.text.slice(
      prompt.text.indexOf("[Memory Index]"),
      prompt.text.indexOf("[Conversation so far]"),
    );
    return {
      prompt_tokens_per_turn: { value: prompt.tokens, unit: "tokens" },
      prompt_memory_tokens_per_turn: { value: estimateTokens(memoryText), unit: "tokens" },
    };
  } finally {
    graph.close();
    docs.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The figures of this module. */
export const figures = {
  "graph_recall_p50_ms_1m": graphFigures,
  "graph_recall_p95_ms_1m": graphFigures,
  "graph_commit_1k_ms": graphFigures,
  "graph_build_1m_s": graphFigures,
  "prompt_tokens_per_turn": promptTokens,
  "prompt_memory_tokens_per_turn": promptTokens,
};
