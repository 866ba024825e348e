/**
 * `memory forget NAME`, the `memory_purge` tool and the web page's forget action, over every
 * tier of a home (issue 14 "Forget means forgotten"). The graph goes first: its transaction
 * writes the tombstones, and from then on every writer (documents, context window, text log,
 * graph commits of every loop) blanks the name out as it writes; the sweep then rewrites what
 * was stored before. Knowledge entries are the owner's own writing: they are reported, not
 * changed. The name itself is never logged.
 */
import {
  checkForgetName,
  type ForgetReport,
  type Logger,
  type MemoryDocument,
  type MemoryForgetter,
  type RelevanceContext,
  type TextRedactor,
} from "../../core/mod.ts";
import type { DocStore } from "../docs/store.ts";
import type { GraphDB } from "../graph/db.ts";
import type { KnowledgeStore } from "../knowledge/base.ts";
import type { TextLog } from "../log/text_log.ts";
import { type HomeFilesOptions, sweepHomeFiles } from "./home_files.ts";
import { everyText, sweepRedactor } from "./hint.ts";

/** The tiers a forget sweeps. */
export interface ForgetParts {
  graph: GraphDB;
  documents: DocStore;
  context: Pick<RelevanceContext, "redact">;
  textLog: Pick<TextLog, "redact">;
  knowledge: Pick<KnowledgeStore, "list" | "read">;
  /** Writes the heartbeat state again without forgotten names (merge pairs, errors). */
  heartbeatState(): Promise<void>;
  /** The daemon's log and the corrupt copies of the home (home_files.ts); absent: not swept. */
  homeFiles?: HomeFilesOptions;
  clock: { now(): number };
  logger: Logger;
}

/** A forgetter over `parts`; forgets run one at a time. */
export function createForgetter(parts: ForgetParts): MemoryForgetter {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    forget(name) {
      const run = queue.then(() => forgetOnce(parts, checkForgetName(name)));
      queue = run.catch(() => {});
      return run;
    },
  };
}

async function forgetOnce(parts: ForgetParts, name: string): Promise<ForgetReport> {
  const again = parts.graph.forgotten.isForgotten(name);
  const graph = await parts.graph.forget(name);
  const redactor = parts.graph.forgotten;
  const documents = await sweepDocuments(parts.documents, redactor, parts.clock.now());
  const docsCheckpoint = parts.documents.compact();
  const events = await parts.context.redact(redactor);
  const textLog = await parts.textLog.redact(redactor);
  await parts.heartbeatState();
  const files = parts.homeFiles
    ? await sweepHomeFiles(
      parts.homeFiles,
      again ? everyText(redactor) : sweepRedactor(redactor, graph.forgotten),
    )
    : { logs: { files: 0, lines: 0 }, removedCopies: [] };
  const knowledge = await knowledgeMentions(parts.knowledge, redactor);
  const report: ForgetReport = {
    name,
    names: graph.names,
    graph: { entities: graph.entities, relations: graph.relations, sentences: graph.sentences },
    documents,
    context: { events },
    textLog,
    ...files,
    knowledge,
    checkpointed: !graph.checkpoint.busy && !docsCheckpoint.busy,
  };
  const { name: _, knowledge: entries, removedCopies, ...counts } = report;
  parts.logger.info("Forgot a name in every tier", {
    ...counts,
    knowledge: entries.length,
    removedCopies: removedCopies.length,
  });
  if (!report.checkpointed) {
    parts.logger.warn(
      "A reader kept a database's write-ahead log; it empties at its next checkpoint",
    );
  }
  return report;
}

/** Rewrite every document that mentions a forgotten name; resolves the counts. */
export async function sweepDocuments(
  documents: DocStore,
  redactor: TextRedactor,
  now: number,
): Promise<{ redacted: number; removed: number }> {
  const out = { redacted: 0, removed: 0 };
  for (const id of documents.ids()) {
    const doc = await documents.get(id);
    if (!doc || !mentionsDocument(doc, redactor)) continue;
    const result = await documents.rewrite(id, {
      ...doc,
      content: redactor.redact(doc.content),
      summary: redactor.redact(doc.summary),
      tags: doc.tags.map((t) => redactor.redact(t)),
      entities: doc.entities.filter((e) => !redactor.mentions(e)),
      updatedAt: now,
    });
    out[result === "removed" ? "removed" : "redacted"]++;
  }
  return out;
}

function mentionsDocument(doc: MemoryDocument, redactor: TextRedactor): boolean {
  return [doc.content, doc.summary, ...doc.tags, ...doc.entities].some((t) => redactor.mentions(t));
}

/** Names of the knowledge entries whose name or content mentions a forgotten name. */
async function knowledgeMentions(
  knowledge: ForgetParts["knowledge"],
  redactor: TextRedactor,
): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await knowledge.list()) {
    if (redactor.mentions(entry.name) || redactor.mentions(await knowledge.read(entry.name))) {
      found.push(entry.name);
    }
  }
  return found;
}
