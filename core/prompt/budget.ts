/** The context budget of ARCHITECTURE.md "Context Budget", and the token estimate it counts with. */

/** The working band never exceeds this many tokens, whatever the window. */
export const MAX_TARGET_TOKENS = 600_000;

/** How a prompt's tokens are split. Budgets are ceilings, not fill targets. */
export interface TokenBudget {
  maxContext: number;
  target: number;
  fixed: number;
  memory: number;
  context: number;
}

/** Options of computeTokenBudget. */
export interface TokenBudgetOptions {
  /** A smaller working band than the window's (a source refused a longer request). */
  target?: number;
}

/**
 * targetUsage = min(window × 0.8, 600k); memory gets ⅓ of what the fixed part leaves, events ⅔.
 * The fixed part is everything that is never pruned: persona, notes, the user's message, this
 * turn's tool rounds and the tool schemas.
 */
export function computeTokenBudget(
  maxContext: number,
  fixedTokens: number,
  options: TokenBudgetOptions = {},
): TokenBudget {
  const band = Math.min(maxContext * 0.8, MAX_TARGET_TOKENS, options.target ?? Infinity);
  const target = Math.max(0, Math.floor(band));
  const free = Math.max(0, target - fixedTokens);
  const memory = Math.floor(free / 3);
  return { maxContext, target, fixed: fixedTokens, memory, context: free - memory };
}

/** Counts tokens of a text. */
export type TokenCounter = (text: string) => number;

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

/**
 * A tokenizer-free estimate that errs high: one token per CJK character, one per four other
 * characters. Close enough for budgeting across providers whose tokenizers differ anyway.
 */
export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}
