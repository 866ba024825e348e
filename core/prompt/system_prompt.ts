/**
 * System prompt assembly: persona → time → pre_action notes → memory index → related documents →
 * knowledge → skills → other sections → conversation timeline. Each section has its share of the
 * token budget (core/prompt/budget.ts) and, when over it, is cut by relevance
 * (core/prompt/sections.ts); a cut section says so in its header, so no cut is silent.
 */
import {
  computeTokenBudget,
  DEFAULT_SECTION_SHARES,
  type PromptSection,
  type SectionShares,
  type TokenBudget,
  type TokenCounter,
} from "./budget.ts";
import { type ContextEvent, type ContextWindow, formatEvent } from "./context.ts";
import type { ChatMessage, ToolSchema } from "../llm/provider.ts";
import { requestTokens } from "../llm/request_prune.ts";
import type { RequestBuilder, RequestFit } from "../llm/call.ts";
import { fitLines, fitPersona, type Relevance } from "./sections.ts";

/** Which tier or part a prompt section comes from; the prompt orders sections by it. */
export type MemorySectionKind = "graph" | "documents" | "knowledge" | "skills";

/** The prompt order of section kinds; sections without a kind come last, in their own order. */
export const MEMORY_SECTION_ORDER: readonly MemorySectionKind[] = [
  "graph",
  "documents",
  "knowledge",
  "skills",
];

/** A titled block of the prompt ("[Memory Index]", "[Related Memory Docs]", "[Skills]", …). */
export interface MemorySection {
  title: string;
  lines: string[];
  kind?: MemorySectionKind;
  /** Said after the title on its line ("Call skill_load with a name …"). */
  hint?: string;
  /**
   * `false`: the lines are in no order of relevance (an index by name), so they are ranked
   * against the input when the section must be cut. Default: they come ranked (recall order).
   */
  ranked?: boolean;
}

/** What the prompt's relevance cuts read, computed once per turn against the input. */
export interface PromptRelevance {
  /** Relevance of a persona paragraph or an unranked section's line. */
  text?: Relevance;
  /** Relevance of each timeline event, by id. */
  events?: ReadonlyMap<string, number>;
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
   * schemas — counted with the fixed part, so the sections take only what they leave.
   */
  reservedTokens?: number;
  /** A working band below the window's (a source refused a longer request). */
  targetTokens?: number;
  count: TokenCounter;
  /** Each section's share of the budget; default DEFAULT_SECTION_SHARES. */
  shares?: SectionShares;
  relevance?: PromptRelevance;
}

/** A section that did not fit its share: how much of it went in. */
export interface SectionCut {
  section: PromptSection;
  title: string;
  kept: number;
  cut: number;
}

/** The assembled prompt and the budget it was built under. */
export interface BuiltPrompt {
  text: string;
  budget: TokenBudget;
  timeline: ContextEvent[];
  tokens: number;
  /** Sections cut to their share (each also says so in its header). */
  cuts: SectionCut[];
}

/**
 * Assemble the system prompt inside the token budget. Budgets are ceilings: nothing is padded,
 * and a section over its share keeps its most relevant lines (the timeline: the newest few,
 * then the most relevant events). The time and the notes are never cut; the persona keeps at
 * least its first paragraph.
 */
export function buildSystemPrompt(parts: PromptParts): BuiltPrompt {
  const { count } = parts;
  const time = new Date(parts.now).toISOString().replace("T", " ").slice(0, 16) + " UTC";
  const fixed = [`Current time: ${time}`, ...parts.notes].join("\n\n");
  let budget = computeTokenBudget(
    parts.maxContextTokens,
    count(fixed) + (parts.reservedTokens ?? 0),
    { target: parts.targetTokens, shares: parts.shares },
  );
  const cuts: SectionCut[] = [];
  const persona = fitPersona(parts.persona, budget.sections.persona, count, parts.relevance?.text);
  const personaTokens = count(persona.text);
  if (personaTokens > budget.sections.persona) {
    // A first paragraph over the persona's share: the other sections make room for it.
    budget = computeTokenBudget(parts.maxContextTokens, budget.fixed + personaTokens, {
      target: parts.targetTokens,
      shares: { ...(parts.shares ?? DEFAULT_SECTION_SHARES), persona: 0 },
    });
  }
  if (persona.cut > 0) {
    cuts.push({ section: "persona", title: "Persona", kept: persona.kept, cut: persona.cut });
  }
  const blocks = orderSections(parts.memory).flatMap((section) => {
    const share = budget.sections[section.kind ?? "other"];
    const relevance = section.ranked === false ? parts.relevance?.text : undefined;
    const fitted = fitLines(section.lines, share, count, relevance);
    if (section.lines.length === 0) return [];
    if (fitted.cut > 0) {
      cuts.push({
        section: section.kind ?? "other",
        title: section.title,
        kept: fitted.lines.length,
        cut: fitted.cut,
      });
    }
    return [[header(section.title, section.hint, fitted.cut), ...fitted.lines].join("\n")];
  });
  const { timeline, block: timelineBlock, cut } = timelineSection(parts, budget.context);
  if (cut > 0) {
    cuts.push({ section: "timeline", title: "Conversation so far", kept: timeline.length, cut });
  }
  const text = [persona.text, fixed, ...blocks, timelineBlock].filter((s) => s !== "").join("\n\n");
  return { text, budget, timeline, tokens: count(text), cuts };
}

function header(title: string, hint: string | undefined, cut: number): string {
  const more = cut > 0 ? ` (${cut} ${cut === 1 ? "line" : "lines"} not shown)` : "";
  return `[${title}]${more}${hint ? ` ${hint}` : ""}`;
}

/** The timeline within its share; its header says how many other events were left out. */
function timelineSection(
  parts: PromptParts,
  budget: number,
): { timeline: ContextEvent[]; block: string; cut: number } {
  const exclude = parts.currentEventId;
  let cut = 0;
  const timeline = parts.context.timeline(budget, parts.count, {
    exclude,
    relevance: parts.relevance?.events,
    onLeftOut: (count) => cut = count,
  }).filter((e) => e.id !== exclude);
  const all = timeline.length + cut;
  if (all === 0) return { timeline, block: "", cut };
  const more = cut > 0 ? ` (${cut} ${timeline.length > 0 ? "other " : ""}events not shown)` : "";
  const lines = timeline.map(formatEvent);
  return { timeline, block: [`[Conversation so far]${more}`, ...lines].join("\n"), cut };
}

/** What a turn's request is made of, besides the window of the source it is built for. */
export interface PromptRequestParts
  extends Omit<PromptParts, "maxContextTokens" | "reservedTokens" | "targetTokens"> {
  /** The user's message and this turn's tool rounds: sent whole after the system prompt. */
  messages: ChatMessage[];
  /** The tool schemas, or what a source with a window of that many tokens is sent. */
  tools?: ToolSchema[] | ((window: number) => ToolSchema[] | undefined);
}

/**
 * A request built per source: the messages and tool schemas are counted first and never cut;
 * the system prompt's memory and timeline take what the source's window leaves of them.
 */
export function promptRequest(
  parts: PromptRequestParts,
  onBuilt?: (prompt: BuiltPrompt, fit: RequestFit) => void,
): RequestBuilder {
  const { messages, tools: toolsFor, ...prompt } = parts;
  return (fit) => {
    const { window, targetTokens, count } = fit;
    const tools = typeof toolsFor === "function" ? toolsFor(window) : toolsFor;
    // The system message's own overhead (4 tokens in requestTokens) is reserved with the rest.
    const reservedTokens = requestTokens({ messages, tools }, count) + 4;
    const system = buildSystemPrompt({
      ...prompt,
      count,
      maxContextTokens: window,
      reservedTokens,
      targetTokens,
    });
    onBuilt?.(system, fit);
    return { messages: [{ role: "system", content: system.text }, ...messages], tools };
  };
}

/** Sections sorted by kind (graph → documents → knowledge → skills → others), stable within one. */
export function orderSections(sections: readonly MemorySection[]): MemorySection[] {
  const rank = (s: MemorySection) => {
    const i = s.kind === undefined ? -1 : MEMORY_SECTION_ORDER.indexOf(s.kind);
    return i < 0 ? MEMORY_SECTION_ORDER.length : i;
  };
  return sections.map((section, index) => ({ section, index }))
    .sort((a, b) => rank(a.section) - rank(b.section) || a.index - b.index)
    .map((x) => x.section);
}
