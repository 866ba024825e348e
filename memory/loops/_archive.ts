/**
 * The archive loop (ARCHITECTURE.md "Context Pruning" → archiveColdDocs): cold documents become
 * triples in the graph, then the document is removed. With an LLM source the model extracts the
 * triples through the consolidation path (JSON, checked with zod); on bad output, or without a
 * source, the rule distiller plus keyword co-occurrence (`<topic> —mentions→ <keyword>`, low
 * confidence) stand in.
 */
import { z } from "zod";
import {
  ConsolidationError,
  type Consolidator,
  type DocumentStore,
  type GraphMemory,
  type HeartbeatCounts,
  type Logger,
  type MemoryDocument,
  readDecision,
  type Triple,
} from "../../core/mod.ts";
import { distillText, splitCoordinated } from "./distiller.ts";
import { isSingleValued, normalizePredicate } from "../graph/schema.ts";
import type { TextAnalyzer } from "../text/keywords.ts";

/** Confidence of a keyword co-occurrence triple (the review loop looks at these). */
export const KEYWORD_CONFIDENCE = 0.3;

/** Options of archiveColdDocuments. */
export interface ArchiveOptions {
  documents: DocumentStore;
  graph: GraphMemory;
  analyzer: TextAnalyzer;
  consolidator?: Consolidator;
  logger: Logger;
  now: number;
  /** Idle time before a document is cold; default 72 h. */
  idleMs?: number;
  /** Most accesses of a cold document; default 2. */
  maxAccess?: number;
  /** Documents per run; default 20. */
  batch?: number;
  signal?: AbortSignal;
}

const LlmTriples = z.lazy(() =>
  z.object({
    triples: z.array(z.object({
      subject: z.string().trim().min(1).max(200),
      predicate: z.string().trim().min(1).max(100),
      object: z.string().trim().min(1).max(500),
      confidence: z.number().min(0).max(1).optional(),
    })).max(50),
  })
);

/** One run of the archive loop. */
export async function archiveColdDocuments(options: ArchiveOptions): Promise<HeartbeatCounts> {
  const cold = await options.documents.findCold({
    now: options.now,
    idleMs: options.idleMs ?? 72 * 3_600_000,
    maxAccess: options.maxAccess ?? 2,
  });
  const counts = {
    cold: cold.length,
    archived: 0,
    triples: 0,
    llm: 0,
    fallback: 0,
    deferred: 0,
    unavailable: 0,
  };
  let useLlm = options.consolidator?.available() ?? false;
  for (const doc of cold.slice(0, options.batch ?? 20)) {
    options.signal?.throwIfAborted();
    let triples: Triple[] | undefined;
    if (useLlm) {
      try {
        triples = await llmTriples(doc, options);
        if (triples) counts.llm++;
      } catch (error) {
        if (!(error instanceof ConsolidationError)) throw error;
        if (error.kind === "deferred") {
          // Preempted or stopped: the owner is talking; try the rest next time.
          options.logger.info("Archive deferred", { document: doc.id, reason: error.status });
          counts.deferred++;
          break;
        }
        // No LLM answers: the rules stand in for this run, said once, not per document.
        options.logger.warn("Archive: no LLM answered; using the rule distiller for this run", {
          reason: error.status,
          error: error.message,
        });
        counts.unavailable = 1;
        useLlm = false;
      }
    }
    if (!triples) {
      triples = fallbackTriples(doc, options.analyzer);
      counts.fallback++;
    }
    if (triples.length > 0) await options.graph.commit(triples);
    await options.documents.remove(doc.id);
    counts.archived++;
    counts.triples += triples.length;
  }
  return counts;
}

/** The rule and keyword triples of a document (the fallback without a usable LLM answer). */
export function fallbackTriples(doc: MemoryDocument, analyzer: TextAnalyzer): Triple[] {
  const base = { sentence: doc.summary, turnIds: doc.turnIds, validFrom: doc.createdAt };
  // Lines the agent said ("[time] you: …") are not facts about the owner.
  const spoken = doc.content.split("\n").filter((l) => !/^\[[^\]]*\] you: /.test(l))
    .map((l) => l.replace(/^\[[^\]]*\] [^:]{1,40}: /, "")).join("\n");
  const rules = distillText(spoken, { turnIds: doc.turnIds }).map((t) => ({
    ...t,
    validFrom: doc.createdAt,
  }));
  const words = analyzer.keywords(doc.content, { limit: 6 }).map((k) => k.word);
  const topic = doc.entities[0] ?? words[0];
  if (topic === undefined) return rules;
  const mentions = words.filter((w) => w.toLowerCase() !== topic.toLowerCase()).slice(0, 5)
    .map((word): Triple => ({
      subject: topic,
      predicate: "mentions",
      object: word,
      subjectType: "topic",
      objectType: "topic",
      confidence: KEYWORD_CONFIDENCE,
      ...base,
    }));
  return [...rules, ...mentions];
}

async function llmTriples(
  doc: MemoryDocument,
  options: ArchiveOptions,
): Promise<Triple[] | undefined> {
  const reply = await options.consolidator!.ask(archivePrompt(doc), {
    signal: options.signal,
    meta: { heartbeat: "archive", document: doc.id },
  });
  const decision = readDecision(reply, LlmTriples);
  if (!decision.ok) {
    options.logger.warn("Archive: the model's triples are unusable; using the fallback", {
      document: doc.id,
      problem: decision.problem,
    });
    return undefined;
  }
  // One fact per object: a model that answers "火锅和烧烤" for a multi-valued predicate gets
  // the two facts the rules would have made.
  return decision.value.triples.flatMap((t) => {
    const objects = isSingleValued(normalizePredicate(t.predicate))
      ? [t.object]
      : splitCoordinated(t.object);
    return objects.map((object) => ({
      subject: t.subject,
      predicate: t.predicate,
      object,
      confidence: t.confidence ?? 0.7,
      sentence: doc.summary,
      turnIds: doc.turnIds,
      validFrom: doc.createdAt,
    }));
  });
}

/** The most characters of one document an archive prompt carries (a pasted text is cut). */
const ARCHIVE_DOC_CHARS = 4000;

function archivePrompt(doc: MemoryDocument): string {
  const content = doc.content.length > ARCHIVE_DOC_CHARS
    ? `${doc.content.slice(0, ARCHIVE_DOC_CHARS)}\n…(${
      doc.content.length - ARCHIVE_DOC_CHARS
    } characters cut)`
    : doc.content;
  return [
    "[Memory consolidation: archive]",
    "Extract the durable facts in this archived memory as knowledge-graph triples.",
    'Answer with JSON only: {"triples":[{"subject":"…","predicate":"…","object":"…","confidence":0.8}]}',
    'Call the owner "owner". One triple per object: "我喜欢火锅和烧烤" is two. Predicates: 姓名, ' +
    "居住地, 喜好, 年龄, 职业, 工作单位 (employer), 籍贯 (where from), 出生地, a kin word for family " +
    "(妻子, 丈夫, 母亲, 父亲, 姐姐, 妹妹, 哥哥, 弟弟, 儿子, 女儿, 孩子), 宠物 (a pet's name; and " +
    "<name> 物种 <species>), friend_of, knows.",
    'Answer {"triples":[]} when nothing is worth keeping.',
    "",
    `Document (${new Date(doc.createdAt).toISOString().slice(0, 10)}):`,
    content,
  ].join("\n");
}
