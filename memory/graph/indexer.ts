/**
 * The Memory Indexer (ARCHITECTURE.md "Other Memory Layers"): turns an input into graph recall
 * seeds (jieba keywords, plus the input's vector against entity vectors in the shared space),
 * and builds the short auto-injected "[Memory Index]" section. Facts the model already fetched
 * with `memory_recall` are left out of it until their marks expire (recall/marks.ts).
 */
import {
  type Clock,
  type Embedder,
  formatFact,
  type GraphRecall,
  type GraphStore,
  type MemorySection,
} from "../../core/mod.ts";
import type { TextAnalyzer } from "../text/keywords.ts";
import { defaultRecallSettings, type RecallSettingsSource } from "../recall/config.ts";
import { embedQuery, type QueryVector } from "../recall/query.ts";
import { type MarkLifetime, RecalledMarks } from "../recall/marks.ts";

/** Options of GraphIndexer. */
export interface GraphIndexerOptions {
  graph: GraphStore;
  analyzer: TextAnalyzer;
  /** The shared space; when given, the input's vector seeds recall too. */
  embedder?: Embedder;
  /** When recalled marks were made (they expire by turns and by time). */
  clock: Clock;
  /** How long a recalled mark holds, read at each check; default DEFAULT_MARK_LIFETIME. */
  recalledFor?: () => MarkLifetime;
  /** How many recalled fact ids are remembered; default 512. */
  recalledCapacity?: number;
  /** Most facts in the section; default 12. */
  maxFacts?: number;
  /** Most keywords taken from an input; default 12. */
  maxKeywords?: number;
  /** Recall's settings (the query's recency decay); default the space's defaults. */
  recall?: RecallSettingsSource;
}

/** Most facts a section is picked from (recall's default limit). */
const SECTION_POOL = 50;

/** The section title of the auto-injected facts. */
export const MEMORY_INDEX_TITLE = "Memory Index";

/** The hint closing the section. */
export const MEMORY_INDEX_HINT =
  "(More may be stored: call memory_recall with names or topics for details, ids and history.)";

/** What a graph recall is asked with besides its text. */
export interface RecallOptions {
  signal?: AbortSignal;
  /** The turns before the text, oldest first. */
  context?: readonly string[];
  /**
   * The query's vector when the caller has it (recall shares one across the tiers), or its
   * promise: the keyword seeds are found while it is computed.
   */
  vector?: QueryVector;
}

/** Seeds recall from inputs and builds the "[Memory Index]" section. */
export class GraphIndexer {
  #o: GraphIndexerOptions;
  #recalled: RecalledMarks;

  constructor(options: GraphIndexerOptions) {
    this.#o = options;
    this.#recalled = new RecalledMarks({
      clock: options.clock,
      lifetime: options.recalledFor,
      capacity: options.recalledCapacity,
    });
  }

  /** Remember facts the model fetched itself, so auto-injection leaves them out for a while. */
  markRecalled(relationIds: Iterable<number>): void {
    this.#recalled.mark(relationIds);
  }

  /** Whether `relationId` was fetched by the model and its mark still holds. */
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
    options: RecallOptions & { limit?: number } = {},
  ): Promise<GraphRecall> {
    const context = options.context ?? [];
    const max = this.#o.maxKeywords ?? 12;
    const keywords = [...new Set([text, ...context.toReversed()].flatMap((t) => this.keywords(t)))]
      .slice(0, max);
    let vector = options.vector;
    if (!vector && this.#o.embedder && text.trim() !== "") {
      const decay = (this.#o.recall ?? (() => defaultRecallSettings(this.#o.embedder!)))().decay;
      const query = { turns: [...context, text], decay };
      // Not awaited here: the graph finds its keyword seeds while the Worker embeds.
      vector = embedQuery(query, this.#o.embedder, options.signal);
    }
    if (keywords.length === 0 && !vector) return { entities: [], relations: [] };
    return await this.#o.graph.recall({ keywords, vector, depth: 2, limit: options.limit ?? 50 });
  }

  /**
   * The "[Memory Index]" section for `text`, or undefined when no fresh fact is relevant. Each
   * call is a turn of the conversation: recalled marks age by one.
   */
  async section(text: string, options: RecallOptions = {}): Promise<MemorySection | undefined> {
    this.#recalled.nextTurn();
    const max = this.#o.maxFacts ?? 12;
    // The section shows the first `max` facts not recalled: recall's ranking cut at `max` plus
    // the marks held is the same prefix of its top 50, without reading the rest (issue 14).
    const limit = Math.min(SECTION_POOL, max + this.#recalled.size);
    const found = await this.recall(text, { ...options, limit });
    const facts = found.relations.filter((r) => !this.#recalled.has(r.id)).slice(0, max);
    if (facts.length === 0) return undefined;
    return {
      title: MEMORY_INDEX_TITLE,
      kind: "graph",
      lines: [...facts.map((r) => `- ${formatFact(r)}`), MEMORY_INDEX_HINT],
    };
  }
}
