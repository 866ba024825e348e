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
import { addRelations, names, pick, PREDICATES, rng } from "./_graph_corpus.ts";

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
    addRelations(graph, ids, 1_000_000, random);
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
