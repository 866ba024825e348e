/**
 * A turn's relevance for the prompt's budget cuts, computed once against the input: the
 * persona's paragraphs and the lines of unranked sections (the skill index) by the ranker, the
 * window's events by the context's own vectors. A failure is logged and leaves that part to
 * the default order (recall order, newest first): a cut is never worth failing a turn.
 */
import type { Input } from "../input.ts";
import { errorMessage } from "../errors.ts";
import { lexicalRanker } from "../memory/ranker.ts";
import { personaParagraphs } from "../prompt/sections.ts";
import type { MemorySection, PromptRelevance } from "../prompt/system_prompt.ts";
import type { ContextWindow } from "../prompt/context.ts";
import type { Logger } from "../ports.ts";
import type { TextRanker } from "../memory/ranker.ts";

/** The parts of a turn's deps the relevance reads (TurnDeps has them all). */
interface RelevanceDeps {
  ranker?: TextRanker;
  context: ContextWindow;
  persona(): string;
  logger: Logger;
}

/** The relevance of what the prompt may have to cut, for `input`. Rejects only on abort. */
export async function promptRelevance(
  input: Input,
  sections: readonly MemorySection[],
  signal: AbortSignal,
  deps: RelevanceDeps,
): Promise<PromptRelevance> {
  const texts = [
    ...new Set([
      ...personaParagraphs(deps.persona()).slice(1),
      ...sections.filter((s) => s.ranked === false).flatMap((s) => s.lines),
    ]),
  ];
  const [scores, events] = await Promise.all([
    rankTexts(input.text, texts, signal, deps),
    eventRelevance(input.text, signal, deps),
  ]);
  const byText = new Map(texts.map((text, i) => [text, scores[i] ?? 0]));
  return { text: (text) => byText.get(text), ...(events ? { events } : {}) };
}

async function rankTexts(
  query: string,
  texts: string[],
  signal: AbortSignal,
  deps: Pick<RelevanceDeps, "ranker" | "logger">,
): Promise<number[]> {
  if (texts.length === 0 || query.trim() === "") return [];
  try {
    return await (deps.ranker ?? lexicalRanker).rank(query, texts, { signal });
  } catch (error) {
    if (signal.aborted) throw error;
    deps.logger.warn("Ranking prompt sections failed; they are cut in their own order", {
      error: errorMessage(error),
    });
    return [];
  }
}

async function eventRelevance(
  query: string,
  signal: AbortSignal,
  deps: Pick<RelevanceDeps, "context" | "logger">,
): Promise<ReadonlyMap<string, number> | undefined> {
  if (!deps.context.relevance || query.trim() === "") return undefined;
  try {
    return await deps.context.relevance(query, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    deps.logger.warn("Ranking the timeline failed; it is cut newest first", {
      error: errorMessage(error),
    });
    return undefined;
  }
}
