/**
 * System prompt assembly: persona and pre_action notes → memory index → related documents →
 * knowledge → context timeline, inside the token budget (ARCHITECTURE.md "Context Budget").
 */
import { computeTokenBudget, type TokenBudget, type TokenCounter } from "./budget.ts";
import { type ContextEvent, type ContextWindow, formatEvent } from "./context.ts";
import type { ChatMessage, ToolSchema } from "../llm/provider.ts";
import { requestTokens } from "../llm/request_prune.ts";
import type { RequestBuilder } from "../llm/call.ts";

/** Which tier a memory section comes from; the prompt orders sections by it. */
export type MemorySectionKind = "graph" | "documents" | "knowledge";

/** The prompt order of section kinds; sections without a kind come last, in their own order. */
export const MEMORY_SECTION_ORDER: readonly MemorySectionKind[] = [
  "graph",
  "documents",
  "knowledge",
];

/** A titled block of recalled memory ("[Memory Index]", "[Related Memory Docs]", …). */
export interface MemorySection {
  title: string;
  lines: string[];
  kind?: MemorySectionKind;
}

/** What the prompt is built from. */
export interface PromptParts {
  persona: string;
  now: number;
  memory: MemorySection[];
  /** System messages injected by pre_action handlers. */
  notes: string[];
  context: ContextWindow;
  /** The event of the input being answered, left out of the timeline (it is the user message). */
  currentEventId: string;
  /** The window of the source the request is for. */
  maxContextTokens: number;
  /**
   * Tokens of the rest of the request — the user's message, this turn's tool rounds, the tool
   * schemas — counted with the fixed part, so memory and timeline take only what they leave.
   */
  reservedTokens?: number;
  /** A working band below the window's (a source refused a longer request). */
  targetTokens?: number;
  count: TokenCounter;
}

/** The assembled prompt and the budget it was built under. */
export interface BuiltPrompt {
  text: string;
  budget: TokenBudget;
  timeline: ContextEvent[];
  tokens: number;
}

/**
 * Assemble the system prompt inside the token budget (memory ⅓, timeline ⅔ of what is free).
 * Budgets are ceilings: memory lines are taken in recall order until one does not fit, the
 * timeline newest-first; nothing is padded. The persona and notes are never cut: when they and
 * the reserved part fill the band, memory and timeline are simply left out.
 */
export function buildSystemPrompt(parts: PromptParts): BuiltPrompt {
  const time = new Date(parts.now).toISOString().replace("T", " ").slice(0, 16) + " UTC";
  const fixed = [parts.persona.trim(), `Current time: ${time}`, ...parts.notes].join("\n\n");
  const fixedTokens = parts.count(fixed) + (parts.reservedTokens ?? 0);
  const budget = computeTokenBudget(parts.maxContextTokens, fixedTokens, {
    target: parts.targetTokens,
  });

  const memoryBlocks: string[] = [];
  let memoryUsed = 0;
  for (const section of orderSections(parts.memory)) {
    const lines: string[] = [];
    for (const line of section.lines) {
      const cost = parts.count(line) + 1;
      if (memoryUsed + cost > budget.memory) break;
      memoryUsed += cost;
      lines.push(line);
    }
    if (lines.length > 0) memoryBlocks.push(`[${section.title}]\n${lines.join("\n")}`);
  }

  const timeline = parts.context.timeline(budget.context, parts.count, {
    exclude: parts.currentEventId,
  }).filter((e) => e.id !== parts.currentEventId);
  const timelineBlock = timeline.length > 0
    ? `[Conversation so far]\n${timeline.map(formatEvent).join("\n")}`
    : "";

  const text = [fixed, ...memoryBlocks, timelineBlock].filter((s) => s !== "").join("\n\n");
  return { text, budget, timeline, tokens: parts.count(text) };
}

/** What a turn's request is made of, besides the window of the source it is built for. */
export interface PromptRequestParts
  extends Omit<PromptParts, "maxContextTokens" | "reservedTokens" | "targetTokens"> {
  /** The user's message and this turn's tool rounds: sent whole after the system prompt. */
  messages: ChatMessage[];
  tools?: ToolSchema[];
}

/**
 * A request built per source: the messages and tool schemas are counted first and never cut;
 * the system prompt's memory and timeline take what the source's window leaves of them.
 */
export function promptRequest(parts: PromptRequestParts): RequestBuilder {
  const { messages, tools, ...prompt } = parts;
  // The system message's own overhead (4 tokens in requestTokens) is reserved with the rest.
  const reservedTokens = requestTokens({ messages, tools }, parts.count) + 4;
  return ({ window, targetTokens }) => {
    const system = buildSystemPrompt({
      ...prompt,
      maxContextTokens: window,
      reservedTokens,
      targetTokens,
    });
    return { messages: [{ role: "system", content: system.text }, ...messages], tools };
  };
}

/** Sections sorted by kind (graph → documents → knowledge → others), stable within a kind. */
export function orderSections(sections: readonly MemorySection[]): MemorySection[] {
  const rank = (s: MemorySection) => {
    const i = s.kind === undefined ? -1 : MEMORY_SECTION_ORDER.indexOf(s.kind);
    return i < 0 ? MEMORY_SECTION_ORDER.length : i;
  };
  return sections.map((section, index) => ({ section, index }))
    .sort((a, b) => rank(a.section) - rank(b.section) || a.index - b.index)
    .map((x) => x.section);
}
