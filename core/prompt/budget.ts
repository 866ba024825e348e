/**
 * The context budget of ARCHITECTURE.md "Context Budget", split into one share per prompt
 * section (issue 16): budgets are ceilings, not fill targets, and a section over its share is
 * cut by relevance (core/prompt/sections.ts), never by position.
 */

/** The working band never exceeds this many tokens, whatever the window. */
export const MAX_TARGET_TOKENS = 600_000;

/** The sections of the system prompt that have a share of the budget. */
export type PromptSection =
  | "persona"
  | "graph"
  | "documents"
  | "knowledge"
  | "skills"
  | "other"
  | "timeline";

/** Each section's share of what the fixed part leaves of the band, in percent. */
export type SectionShares = Readonly<Record<PromptSection, number>>;

/**
 * The default shares. They add up to less than 100: what is left is room for the tool rounds
 * of the turn, which are counted into the fixed part once they happen, and for the reply.
 */
export const DEFAULT_SECTION_SHARES: SectionShares = {
  persona: 10,
  graph: 12,
  documents: 12,
  knowledge: 8,
  skills: 5,
  other: 5,
  timeline: 45,
};

/** How a prompt's tokens are split. Budgets are ceilings, not fill targets. */
export interface TokenBudget {
  maxContext: number;
  target: number;
  /** Tokens of the parts never cut: the request's messages and tools, the time, the notes. */
  fixed: number;
  /** Tokens each section may take at most. */
  sections: Readonly<Record<PromptSection, number>>;
  /** The memory sections' shares together (graph, documents, knowledge, skills, other). */
  memory: number;
  /** The timeline's share. */
  context: number;
}

/** Options of computeTokenBudget. */
export interface TokenBudgetOptions {
  /** A smaller working band than the window's (a source refused a longer request). */
  target?: number;
  shares?: SectionShares;
}

/**
 * targetUsage = min(window × 0.8, 600k); each section gets its share of what the fixed part
 * leaves of it. The fixed part is everything that is never cut: the user's message, this
 * turn's tool rounds, the tool schemas, the time line and the pre_action notes.
 */
export function computeTokenBudget(
  maxContext: number,
  fixedTokens: number,
  options: TokenBudgetOptions = {},
): TokenBudget {
  const band = Math.min(maxContext * 0.8, MAX_TARGET_TOKENS, options.target ?? Infinity);
  const target = Math.max(0, Math.floor(band));
  const free = Math.max(0, target - fixedTokens);
  const shares = options.shares ?? DEFAULT_SECTION_SHARES;
  const sections = Object.fromEntries(
    Object.entries(shares).map(([name, share]) => [name, Math.floor(free * share / 100)]),
  ) as Record<PromptSection, number>;
  const memory = sections.graph + sections.documents + sections.knowledge + sections.skills +
    sections.other;
  return { maxContext, target, fixed: fixedTokens, sections, memory, context: sections.timeline };
}

/**
 * Parse `persona=10,timeline=45,…` (percentages of the free band; unnamed sections keep their
 * default). Throws RangeError naming the bad part, or when the shares add up to more than 100.
 */
export function parseSectionShares(text: string): SectionShares {
  const shares: Record<string, number> = { ...DEFAULT_SECTION_SHARES };
  for (const part of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const [name, value] = part.split("=").map((p) => p.trim());
    const share = Number(value);
    if (!name || !(name in DEFAULT_SECTION_SHARES) || !Number.isFinite(share) || share < 0) {
      throw new RangeError(
        `Invalid prompt share "${part}": expected <section>=<percent> with a section of ` +
          Object.keys(DEFAULT_SECTION_SHARES).join(", "),
      );
    }
    shares[name] = share;
  }
  const total = Object.values(shares).reduce((a, b) => a + b, 0);
  if (total > 100) throw new RangeError(`Prompt shares add up to ${total}%, more than 100%`);
  return shares as SectionShares;
}

/** Counts tokens of a text. */
export type TokenCounter = (text: string) => number;

/**
 * The token counter of a model: its own tokenizer where one is known (gpt-tokenizer for the
 * OpenAI family, in adapters/), else estimateTokens. Must not throw.
 */
export type TokenizerFor = (model: string) => TokenCounter;
