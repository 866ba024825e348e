/**
 * The knowledge base as the kernel sees it (ARCHITECTURE.md "Knowledge Base"): entries the owner
 * or the model curate as knowledge/<name>/content.md, apart from conversational memory. A port,
 * the `knowledge_*` tools and the "[Knowledge]" prompt section.
 */
import { z } from "zod";
import { HomeAgentError } from "../errors.ts";
import type { MemorySection } from "../prompt/system_prompt.ts";
import type { RegisteredTool } from "../kernel/tools.ts";
import { defineTool } from "../kernel/define_tool.ts";

/** A refused or unknown entry name (`code` "knowledge_bad_name", "knowledge_exists", "knowledge_not_found"). */
export class KnowledgeError extends HomeAgentError {
  readonly entry: string;
  constructor(code: string, entry: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.entry = entry;
  }
}

/** One entry. */
export interface KnowledgeEntry {
  /** Path under knowledge/, "/" separated ("recipes/dumplings"). */
  name: string;
  /** The parent path ("recipes"), "" at the top. */
  category: string;
  /** The first "# " heading, else the last name segment. */
  title: string;
  size: number;
  updatedAt: number;
}

/** A search hit. */
export interface KnowledgeHit {
  entry: KnowledgeEntry;
  /** The opening of the entry's text (after its heading). */
  snippet: string;
  /** Fused rank score (higher is better; only for ordering). */
  score: number;
  /** Cosine in the current space, when the dense side saw it. */
  dense?: number;
  /** Share of the query's words the entry contains, 0..1. */
  coverage: number;
}

/** The knowledge base port. Methods reject with KnowledgeError for bad names, else on IO failure. */
export interface KnowledgeBase {
  /** Hybrid dense + keyword search over every entry (new and changed files picked up first). */
  search(
    query: string,
    options?: { k?: number; signal?: AbortSignal; vector?: Float32Array },
  ): Promise<KnowledgeHit[]>;
  /** Write an entry; refuses an existing one unless `overwrite`. */
  create(name: string, content: string, options?: { overwrite?: boolean }): Promise<KnowledgeEntry>;
  /** Every entry, by name; only those under `category` when given. */
  list(options?: { category?: string }): Promise<KnowledgeEntry[]>;
  /** The full text of one entry. */
  read(name: string): Promise<string>;
}

/** The "[Knowledge]" section: the `k` best entries above the relevance floor. */
export async function knowledgeSection(
  kb: KnowledgeBase,
  text: string,
  options: {
    k?: number;
    minDense?: number;
    minCoverage?: number;
    signal?: AbortSignal;
    /** The text's vector when the caller has it (recall embeds a turn's input once). */
    vector?: Float32Array;
  } = {},
): Promise<MemorySection | undefined> {
  if (text.trim() === "") return undefined;
  const hits = (await kb.search(text, { k: 5, signal: options.signal, vector: options.vector }))
    .filter((h) =>
      (h.dense ?? 0) >= (options.minDense ?? 0.45) || h.coverage >= (options.minCoverage ?? 0.5)
    )
    .slice(0, options.k ?? 2);
  if (hits.length === 0) return undefined;
  return {
    title: "Knowledge",
    kind: "knowledge",
    lines: hits.map((h) => `- ${h.entry.name}: ${h.snippet}`),
  };
}

/** The kernel's knowledge tools: `knowledge_search`, `knowledge_create`, `knowledge_list`. */
export function knowledgeTools(kb: KnowledgeBase): RegisteredTool[] {
  return [
    defineTool({
      name: "knowledge_search",
      description:
        "Search the knowledge base (curated notes in knowledge/<name>/content.md). Returns the best entries with their text.",
      input: () =>
        z.object({
          query: z.string().min(1).describe("What to look for"),
          k: z.int().min(1).max(10).optional().describe("Most entries (3)"),
        }),
      parallelSafe: true,
      handler: async (args, ctx) => {
        const hits = await kb.search(args.query, { k: args.k ?? 3, signal: ctx.signal });
        if (hits.length === 0) return "No matching knowledge entries.";
        const texts = await Promise.all(hits.map((h) => kb.read(h.entry.name)));
        return hits.map((h, i) => `## ${h.entry.name}\n${texts[i]!.trim()}`).join("\n\n");
      },
    }),
    defineTool({
      name: "knowledge_create",
      description:
        'Save a knowledge entry as knowledge/<name>/content.md (Markdown). Use "/" in the name for categories, e.g. "recipes/dumplings".',
      input: () =>
        z.object({
          name: z.string().min(1).max(200),
          content: z.string().min(1),
          overwrite: z.boolean().optional().describe("Replace an existing entry (false)"),
        }),
      handler: async (args) => {
        try {
          const entry = await kb.create(args.name, args.content, {
            overwrite: args.overwrite === true,
          });
          return `Saved knowledge entry "${entry.name}" (${entry.size} bytes).`;
        } catch (error) {
          if (error instanceof KnowledgeError) return { content: error.message, isError: true };
          throw error;
        }
      },
    }),
    defineTool({
      name: "knowledge_list",
      description: "List knowledge entries (name, title), optionally only one category.",
      input: () => z.object({ category: z.string().optional().describe('e.g. "recipes"') }),
      parallelSafe: true,
      handler: async (args) => {
        const entries = await kb.list({ category: args.category });
        if (entries.length === 0) return "The knowledge base has no entries here.";
        return entries.map((e) => `- ${e.name} — ${e.title}`).join("\n");
      },
    }),
  ];
}
