/**
 * Cutting a prompt section to its budget by relevance, never by position: when the lines of a
 * section do not all fit its share, the most relevant ones that fit are kept (in their own
 * order), and a line too long for what is left is skipped rather than ending the section.
 */
import type { TokenCounter } from "./budget.ts";

/** The relevance of a text to the turn's input, higher is better; undefined: not ranked. */
export type Relevance = (text: string) => number | undefined;

/** What fitting a section kept. */
export interface FittedLines {
  lines: string[];
  /** Lines left out. */
  cut: number;
  tokens: number;
}

/**
 * The lines of a section within `budget` tokens (each line costs its tokens plus one for the
 * newline). Without `relevance` the lines are taken to be ranked already (memory recall order)
 * and are tried in order; with it, best first. The kept lines keep their original order.
 */
export function fitLines(
  lines: readonly string[],
  budget: number,
  count: TokenCounter,
  relevance?: Relevance,
): FittedLines {
  const costs = lines.map((line) => count(line) + 1);
  const total = costs.reduce((a, b) => a + b, 0);
  if (total <= budget) return { lines: [...lines], cut: 0, tokens: total };
  const order = lines.map((_, i) => i);
  if (relevance) {
    const score = lines.map((line) => relevance(line) ?? 0);
    order.sort((a, b) => score[b]! - score[a]! || a - b);
  }
  const keep = new Set<number>();
  let used = 0;
  for (const i of order) {
    if (used + costs[i]! > budget) continue;
    used += costs[i]!;
    keep.add(i);
  }
  return {
    lines: lines.filter((_, i) => keep.has(i)),
    cut: lines.length - keep.size,
    tokens: used,
  };
}

/** The persona as sent, and how many of its paragraphs were left out. */
export interface FittedPersona {
  text: string;
  /** Paragraphs kept and left out (0 and 0 when it was sent whole). */
  kept: number;
  cut: number;
}

/**
 * The persona within `budget`: whole when it fits; else its first paragraph (who the agent is,
 * kept even when it alone is over) and the most relevant other paragraphs that fit.
 */
export function fitPersona(
  persona: string,
  budget: number,
  count: TokenCounter,
  relevance?: Relevance,
): FittedPersona {
  const text = persona.trim();
  if (count(text) <= budget) return { text, kept: 0, cut: 0 };
  const [first, ...rest] = personaParagraphs(text);
  if (first === undefined) return { text, kept: 0, cut: 0 };
  const head = count(first) + 2;
  const fitted = fitLines(rest, Math.max(0, budget - head), (p) => count(p) + 1, relevance);
  return {
    text: [first, ...fitted.lines].join("\n\n"),
    kept: 1 + fitted.lines.length,
    cut: fitted.cut,
  };
}

/** The paragraphs of a persona (blank-line separated; a Markdown heading stays with its text). */
export function personaParagraphs(persona: string): string[] {
  const blocks = persona.trim().split(/\n\s*\n/).map((b) => b.trim()).filter((b) => b !== "");
  const out: string[] = [];
  for (const block of blocks) {
    const previous = out.at(-1);
    if (previous !== undefined && /^#{1,6} [^\n]*$/.test(previous)) {
      out[out.length - 1] += `\n\n${block}`;
    } else out.push(block);
  }
  return out;
}
