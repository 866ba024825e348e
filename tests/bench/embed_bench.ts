/**
 * Benchmarks of the vector spaces and keywords (memory/): texts per second through the default
 * hash embedder, the TF-IDF space and keyword extraction, on short bilingual chat turns.
 * @module
 */
import { createHashEmbedder, createTextAnalyzer, createTfIdfSpace } from "../../memory/mod.ts";
import type { FigureFn } from "./_figure.ts";
import { round } from "./_figure.ts";

const ZH = ["我喜欢吃苹果", "今天下雨了，记得带伞", "张三下周去北京出差", "帮我把会议改到周五下午"];
const EN = ["remind me to call Alice tomorrow", "the build failed again on CI", "I love apples"];

function corpus(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${ZH[i % ZH.length]} ${EN[i % EN.length]} #${i}`);
}

/** Texts per second of `fn` over `texts`, best of three passes after a warm-up. */
async function rate(texts: string[], fn: (batch: string[]) => unknown): Promise<number> {
  await fn(texts.slice(0, 200));
  let best = Infinity;
  for (let pass = 0; pass < 3; pass++) {
    const start = performance.now();
    for (let at = 0; at < texts.length; at += 100) await fn(texts.slice(at, at + 100));
    best = Math.min(best, performance.now() - start);
  }
  return round(texts.length / (best / 1000), 0);
}

/** `embed_hash_texts_per_s`, `embed_tfidf_texts_per_s`, `keywords_texts_per_s`. */
export const figures: Record<string, FigureFn> = {
  "embed_hash_texts_per_s": async () => {
    const embedder = createHashEmbedder();
    return { value: await rate(corpus(5_000), (b) => embedder.embed(b)), unit: "texts/s" };
  },
  "embed_tfidf_texts_per_s": async () => {
    const space = createTfIdfSpace();
    const texts = corpus(5_000);
    space.fit(texts);
    return { value: await rate(texts, (b) => space.embed(b)), unit: "texts/s" };
  },
  "keywords_texts_per_s": async () => {
    const analyzer = await createTextAnalyzer();
    return {
      value: await rate(corpus(5_000), (b) => b.map((t) => analyzer.keywords(t, { limit: 5 }))),
      unit: "texts/s",
    };
  },
};
