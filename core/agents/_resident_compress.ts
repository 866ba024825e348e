/** A resident's `compress`: its older context summarised by the LLM into one event. */
import { type ContextEvent, formatEvent, type RecentContext } from "../prompt/context.ts";
import { errorMessage } from "../errors.ts";
import type { HelperDeps } from "./children.ts";

/** What compress did to the context. */
export interface CompressResult {
  before: number;
  after: number;
  /** False when the summary call failed and the older events were only trimmed. */
  summarised: boolean;
}

/** Options of compressContext. */
export interface CompressOptions extends HelperDeps {
  name: string;
  /** Newest events kept verbatim; default 4. */
  keep?: number;
  signal?: AbortSignal;
}

const INSTRUCTION = "Summarise this working log of an assistant in at most ten short lines: " +
  "what it was asked, what it found and decided, and what is still open. Keep names, numbers " +
  "and dates exactly. Reply with the summary only.";

/**
 * Replace all but the newest `keep` events of `context` with one summary event. A failed
 * summary call is logged and the older events are trimmed without a summary; an abort of
 * `signal` rejects. Events appended while the summary is written are kept.
 */
export async function compressContext(
  context: RecentContext,
  options: CompressOptions,
): Promise<CompressResult> {
  const keep = options.keep ?? 4;
  if (!Number.isInteger(keep) || keep < 0) {
    throw new RangeError(`Cannot compress: keep ${keep} is not a non-negative integer`);
  }
  const events = context.events();
  const before = events.length;
  const older = events.slice(0, Math.max(0, before - keep));
  if (older.length === 0) return { before, after: before, summarised: false };
  let summary: string | undefined;
  try {
    const { response } = await options.llm.call({
      messages: [
        { role: "system", content: INSTRUCTION },
        { role: "user", content: older.map(formatEvent).join("\n") },
      ],
    }, { signal: options.signal, stream: false, cause: "resident" });
    summary = response.text.trim() || undefined;
  } catch (error) {
    if (options.signal?.aborted) throw error;
    options.logger.warn("Resident summary failed; trimming its context without one", {
      resident: options.name,
      error: errorMessage(error),
    });
  }
  const gone = new Set(older.map((e) => e.id));
  const head: ContextEvent[] = summary === undefined ? [] : [{
    id: `${options.name}:summary:${options.clock.now()}`,
    role: "cold_storage",
    source: "summary",
    channel: "_resident_",
    input: `Summary of ${older.length} earlier events`,
    response: summary,
    timestamp: older.at(-1)!.timestamp,
  }];
  context.replace([...head, ...context.events().filter((e) => !gone.has(e.id))]);
  return { before, after: context.size(), summarised: summary !== undefined };
}
