/**
 * The document layer as the kernel sees it (ARCHITECTURE.md "Document Layer"): a port, the
 * archive of pruned context events, the auto-injected "[Related Memory Docs]" and the
 * `doc_query` / `doc_commit` tools.
 */
import { z } from "zod";
import type { ContextEvent } from "../prompt/context.ts";
import { exchangeOf, formatEvent } from "../prompt/context.ts";
import type { MemorySection } from "../prompt/system_prompt.ts";
import type { RegisteredTool } from "../kernel/tools.ts";
import { defineTool } from "../kernel/define_tool.ts";

/** A stored document. */
export interface MemoryDocument {
  id: string;
  summary: string;
  content: string;
  tags: string[];
  entities: string[];
  source: string;
  createdAt: number;
  updatedAt: number;
  accessCount: number;
  lastAccess?: number;
  /** Ids of the turns the document came from, so recall maps back to conversation turns. */
  turnIds: string[];
}

/** What a writer supplies; the store fills in id, times, counts and the vector. */
export interface NewDocument {
  content: string;
  summary?: string;
  tags?: string[];
  entities?: string[];
  source: string;
  /** Original time (an archived event keeps its own). Defaults to now. */
  createdAt?: number;
  turnIds?: string[];
}

/** A query hit: the document and how it ranked. */
export interface ScoredDocument {
  document: MemoryDocument;
  /** Mixed score in [0, 1] (higher is better). */
  score: number;
  /** Cosine in the current space, when the dense side saw it. */
  dense?: number;
  /** Whether the keyword side matched it. */
  keyword: boolean;
}

/** The document store port. Methods reject on storage failure. */
export interface DocumentStore {
  /** Store a document; identical content is stored once (`duplicate` then names the first). */
  insert(doc: NewDocument): Promise<{ id: string; duplicate: boolean }>;
  /**
   * Hybrid search: a dense cosine and BM25, each min-max normalised over the candidates, mixed
   * with the configured weights. `context` holds the turns before `text` (oldest first): the
   * query is then all of them, weighted by recency. `touch` counts the hits as accessed (an
   * explicit read: the automatic "[Related Memory Docs]" never touches). A document found only
   * by the dense side needs a cosine of at least `minDense` (store default when absent).
   */
  query(
    text: string,
    options?: {
      k?: number;
      signal?: AbortSignal;
      touch?: boolean;
      minDense?: number;
      context?: readonly string[];
    },
  ): Promise<ScoredDocument[]>;
  /** Read and delete: what `doc_query` hands back into the context window. */
  consume(ids: readonly string[]): Promise<MemoryDocument[]>;
  /** Documents not accessed for `idleMs` and accessed at most `maxAccess` times. */
  findCold(options: { now: number; idleMs: number; maxAccess: number }): Promise<MemoryDocument[]>;
  remove(id: string): Promise<boolean>;
  size(): number;
}

/**
 * Turn pruned context events into documents: one per exchange (an input with the reply to it),
 * with its events' original time.
 */
export function eventsToDocuments(events: readonly ContextEvent[]): NewDocument[] {
  const groups = new Map<string, ContextEvent[]>();
  for (const event of events) {
    const key = exchangeOf(event);
    groups.set(key, [...(groups.get(key) ?? []), event]);
  }
  return [...groups.values()].map((group) => ({
    content: group.map(formatEvent).join("\n"),
    source: group[0]!.source,
    createdAt: Math.min(...group.map((e) => e.timestamp)),
    tags: ["context_archive"],
    turnIds: [...new Set(group.flatMap((e) => e.turnIds ?? []))],
  }));
}

/** A timeline stamp as formatEvent writes it: `[2026-12-01 18:00] who: `. */
const STAMP = /\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\] [^\n]{1,64}?: /g;

/**
 * The text a document is embedded and indexed by: its content without the timeline stamps an
 * archived exchange carries. The window scores an event by what was said (textForVector); the
 * same exchange, once archived, must score by the same words, or its date digits and speaker
 * label shift its cosine and its BM25 length against the window's events in recall's pool.
 */
export function textForScoring(content: string): string {
  return content.replace(STAMP, "").trim();
}

/** The "[Related Memory Docs]" section of `docs` (summaries only), or undefined when empty. */
export function documentsSection(docs: readonly MemoryDocument[]): MemorySection | undefined {
  if (docs.length === 0) return undefined;
  return {
    title: "Related Memory Docs",
    kind: "documents",
    lines: docs.map((d) => `- (${shortDate(d.createdAt)}) ${d.summary}`),
  };
}

function shortDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Where doc_query puts what it consumed: the context window, at the original time. */
export interface ColdStorageSink {
  insert(event: ContextEvent): void;
  /** Resolves once the inserted events are durable (see ContextWindow.commit). */
  commit?(): Promise<void>;
}

/** The kernel's document tools, `doc_query` and `doc_commit`. */
export function documentTools(store: DocumentStore, context: ColdStorageSink): RegisteredTool[] {
  return [
    defineTool({
      name: "doc_query",
      description:
        "Search document memory (older conversations, saved notes); what it finds moves back " +
        "into your working context at its time.",
      input: () =>
        z.object({
          query: z.string().min(1),
          k: z.int().min(1).max(20).optional().describe("most documents (5)"),
        }),
      handler: async (args, ctx) => {
        const hits = await store.query(args.query, { k: args.k ?? 5, signal: ctx.signal });
        if (hits.length === 0) return "No matching documents.";
        const docs = hits.map((h) => h.document).sort((a, b) => a.createdAt - b.createdAt);
        for (const doc of docs) {
          context.insert({
            id: `doc:${doc.id}`,
            role: "cold_storage",
            source: doc.source,
            channel: "memory",
            input: doc.summary,
            response: doc.content === doc.summary ? undefined : doc.content,
            turnIds: doc.turnIds,
            timestamp: doc.createdAt,
          });
        }
        // The window holds them durably before the documents go: a crash in between leaves a
        // document that the next start removes (its `doc:` event is in the window), never none.
        await context.commit?.();
        await store.consume(docs.map((d) => d.id));
        return docs.map((d) => `[${new Date(d.createdAt).toISOString()}] ${d.content}`)
          .join("\n\n");
      },
    }),
    defineTool({
      name: "doc_commit",
      description: "Save a note to document memory for later recall.",
      input: () =>
        z.object({
          content: z.string().min(1),
          summary: z.string().optional(),
          tags: z.array(z.string()).optional(),
        }),
      handler: async (args) => {
        const result = await store.insert({
          content: args.content,
          summary: args.summary,
          tags: args.tags ?? [],
          source: "doc_commit",
        });
        return result.duplicate
          ? `Already stored as document ${result.id}.`
          : `Stored as document ${result.id}.`;
      },
    }),
  ];
}
