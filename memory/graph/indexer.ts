/**
 * The Memory Indexer (ARCHITECTURE.md "Other Memory Layers"): turns an input into graph recall
 * seeds (jieba keywords, plus the input's vector against entity vectors in the shared space),
 * and builds the short auto-injected "[Memory Index]" section. Facts the model already fetched
 * with `memory_recall` this session are remembered (bounded FIFO) and not injected again.
 */
import {
  type Embedder,
  formatFact,
  type GraphRecall,
  type GraphStore,
  type MemorySection,
} from "../../core/mod.ts";
import type { TextAnalyzer } from "../text/keywords.ts";
import { defaultRecallSettings, type RecallSettingsSource } from "../recall/config.ts";
import { embedQuery } from "../recall/query.ts";

/** Options of GraphIndexer. */
export interface GraphIndexerOptions {
  graph: GraphStore;
  analyzer: TextAnalyzer;
  /** The shared space; when given, the input's vector seeds recall too. */
  embedder?: Embedder;
  /** How many recalled fact ids are remembered; default 512. */
  recalledCapacity?: number;
  /** Most facts in the section; default 12. */
  maxFacts?: number;
  /** Most keywords taken from an input; default 12. */
  maxKeywords?: number;
  /** Recall's settings (the query's recency decay); default the space's defaults. */
  recall?: RecallSettingsSource;
}

/** The section title of the auto-injected facts. */
export const MEMORY_INDEX_TITLE = "Memory Index";

/** The hint closing the section. */
export const MEMORY_INDEX_HINT =
  "(More may be stored: call memory_recall with names or topics for details, ids and history.)";

/** Seeds recall from inputs and builds the "[Memory Index]" section. */
export class GraphIndexer {
  #o: GraphIndexerOptions;
  #recalled = new Set<number>();
  #order: number[] = [];

  constructor(options: GraphIndexerOptions) {
    this.#o = options;
  }

  /** Remember facts the model fetched itself, so auto-injection leaves them out. */
  markRecalled(relationIds: Iterable<number>): void {
    const capacity = this.#o.recalledCapacity ?? 512;
    for (const id of relationIds) {
      if (this.#recalled.has(id)) continue;
      this.#recalled.add(id);
      this.#order.push(id);
    }
    const excess = this.#order.length - capacity;
    if (excess > 0) {
      for (const id of this.#order.splice(0, excess)) this.#recalled.delete(id);
    }
  }

  /** Whether `relationId` was fetched by the model and is still remembered. */
  wasRecalled(relationId: number): boolean {
    return this.#recalled.has(relationId);
  }

  /** The recall keywords of `text` (jieba for Chinese, words for other scripts). */
  keywords(text: string): string[] {
    return this.#o.analyzer.keywords(text, { limit: this.#o.maxKeywords ?? 12 }).map((k) => k.word);
  }

  /**
   * Graph recall seeded by `text`'s keywords and vector; empty when nothing matches. With
   * `context` (the turns before `text`, oldest first) the vector is recall's recency-weighted
   * query over all of them, and their keywords follow the input's own.
   */
  async recall(
    text: string,
    options: { signal?: AbortSignal; limit?: number; context?: readonly string[] } = {},
  ): Promise<GraphRecall> {
    const context = options.context ?? [];
    const max = this.#o.maxKeywords ?? 12;
    const keywords = [...new Set([text, ...context.toReversed()].flatMap((t) => this.keywords(t)))]
      .slice(0, max);
    let vector: Float32Array | undefined;
    if (this.#o.embedder && text.trim() !== "") {
      const decay = (this.#o.recall ?? (() => defaultRecallSettings(this.#o.embedder!)))().decay;
      const query = { turns: [...context, text], decay };
      vector = await embedQuery(query, this.#o.embedder, options.signal);
    }
    if (keywords.length === 0 && !vector) return { entities: [], relations: [] };
    return await this.#o.graph.recall({ keywords, vector, depth: 2, limit: options.limit ?? 50 });
  }

  /** The "[Memory Index]" section for `text`, or undefined when no fresh fact is relevant. */
  async section(
    text: string,
    options: { signal?: AbortSignal; context?: readonly string[] } = {},
  ): Promise<MemorySection | undefined> {
    const found = await this.recall(text, options);
    const facts = found.relations.filter((r) => !this.#recalled.has(r.id))
      .slice(0, this.#o.maxFacts ?? 12);
    if (facts.length === 0) return undefined;
    return {
      title: MEMORY_INDEX_TITLE,
      kind: "graph",
      lines: [...facts.map((r) => `- ${formatFact(r)}`), MEMORY_INDEX_HINT],
    };
  }
}
