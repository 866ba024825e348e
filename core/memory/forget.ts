/**
 * Forgetting (issue 14 "Forget means forgotten"): the port that erases a name from every tier —
 * graph, documents, the context window, the text log — and leaves a tombstone (a keyed hash,
 * never the name) so no loop or distiller stores it again; the name check every caller shares;
 * and the model's `memory_purge` tool over it.
 */
import { NameError } from "../names.ts";
import { z } from "zod";
import type { RegisteredTool } from "../kernel/tools.ts";
import { defineTool } from "../kernel/define_tool.ts";

/** Longest name `forget` takes, in characters. */
export const MAX_FORGET_NAME = 200;

/** Finds and blanks out forgotten names in text (memory/ holds them as keyed hashes). */
export interface TextRedactor {
  /** Whether `text` mentions a forgotten name. */
  mentions(text: string): boolean;
  /** `text` with every forgotten name replaced by a mark. */
  redact(text: string): string;
}

/** What forgetting a name did, tier by tier. */
export interface ForgetReport {
  /** The name as asked (the report goes to whoever asked; it is stored nowhere). */
  name: string;
  /** Names tombstoned: the name, and its entity's name and aliases when it had one. */
  names: number;
  graph: { entities: number; relations: number; sentences: number };
  documents: { redacted: number; removed: number };
  context: { events: number };
  textLog: { files: number; lines: number };
  /** The daemon's log (logs/homeagent.log and its rotated files): files rewritten, lines changed. */
  logs: { files: number; lines: number };
  /** Copies set aside as corrupt (`*.corrupt-*`) that held the name: deleted (paths in the home). */
  removedCopies: string[];
  /** Knowledge entries that mention the name: the owner's own writing, reported, not changed. */
  knowledge: string[];
  /** Whether every database was vacuumed and its write-ahead log emptied. */
  checkpointed: boolean;
}

/** Erases names from every tier. */
export interface MemoryForgetter {
  /**
   * Forget `name` (checked with checkForgetName) everywhere; resolves the report. Rejects with
   * NameError on a bad name and with the storage's error on failure (what was done stays
   * done; the tombstone is written first, so running it again finishes the job).
   */
  forget(name: string): Promise<ForgetReport>;
}

/**
 * Return `name` trimmed when it can be forgotten; throws NameError saying why not. A name of one
 * character, or without a letter or digit, would redact half of every text; "owner" is the
 * owner's own node, which everything hangs on.
 */
export function checkForgetName(name: unknown): string {
  if (typeof name !== "string") throw new NameError("entity", String(name), "it is not text");
  const shown = name.normalize("NFKC").trim().replace(/\s+/g, " ");
  const fail = (why: string) => {
    throw new NameError("entity", name, why);
  };
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) fail("it contains a control character");
  if (shown === "") fail("it is empty");
  if ([...shown].length > MAX_FORGET_NAME) fail(`it is longer than ${MAX_FORGET_NAME} characters`);
  if ([...shown].length < 2) fail("it is a single character (it would erase it from every word)");
  if (!/[\p{L}\p{N}]/u.test(shown)) fail("it has no letter or digit");
  if (shown.toLowerCase() === "owner") fail('"owner" is the owner\'s own entity');
  return shown;
}

/** The report as one paragraph for the model or a person. */
export function formatForgetReport(r: ForgetReport): string {
  const parts = [
    `${r.graph.entities} entities, ${r.graph.relations} facts, ${r.graph.sentences} sentences`,
    `${r.documents.redacted} documents redacted (${r.documents.removed} removed as duplicates)`,
    `${r.context.events} context events`,
    `${r.textLog.lines} text-log lines in ${r.textLog.files} files`,
    `${r.logs.lines} daemon-log lines in ${r.logs.files} files`,
  ];
  const copies = r.removedCopies.length === 0
    ? ""
    : ` Copies set aside as corrupt that held it were deleted: ${r.removedCopies.join(", ")}.`;
  const knowledge = r.knowledge.length === 0
    ? ""
    : ` Knowledge entries that still mention it (the owner's own notes, left as written): ${
      r.knowledge.join(", ")
    }.`;
  return `Forgot "${r.name}" everywhere: ${parts.join("; ")}. It will not be stored again.` +
    copies + knowledge;
}

/** `memory_purge` through `forgetter`: the model's way to honour "forget X". */
export function forgetTool(forgetter: MemoryForgetter): RegisteredTool {
  return defineTool({
    name: "memory_purge",
    description: "Forget a name completely when the owner asks: its entity and every fact " +
      "touching it, and the name in documents, the working context, the conversation " +
      "log and the daemon's log; it is never stored again. Irreversible.",
    input: () => z.object({ name: z.string().min(1).max(MAX_FORGET_NAME) }),
    handler: async ({ name }) => {
      let checked: string;
      try {
        checked = checkForgetName(name);
      } catch (error) {
        if (error instanceof NameError) return { content: error.message, isError: true };
        throw error;
      }
      return formatForgetReport(await forgetter.forget(checked));
    },
  });
}
