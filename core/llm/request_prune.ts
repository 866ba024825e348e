/**
 * Fitting a request to a source's window. A request is built per source (RequestBuilder, so the
 * prompt's memory and timeline take what that source's window leaves), and one that is still
 * too long is pruned: the oldest lines of the prompt's conversation timeline go, then the middle
 * of the oldest tool results. The persona and the user's messages are never cut: what cannot
 * fit without them is refused. Pure: no IO, the input is not modified.
 */
import type { TokenCounter } from "../prompt/budget.ts";
import type { ChatMessage, ChatRequest } from "./provider.ts";
import type { PruneReason } from "./call.ts";

/** The most estimated tokens a request may have for `window`: what its reply may take is kept. */
export function fitLimit(window: number, request: ChatRequest): number {
  return Math.max(0, window - (request.maxTokens ?? 0));
}

/** What a pruner is told. */
export interface PruneInfo {
  source: string;
  reason: PruneReason;
  /** The source's window in tokens. */
  window: number;
  /** Aim at or below this many estimated tokens. */
  targetTokens: number;
  count: TokenCounter;
}

/** Returns a smaller request (or the same one when nothing can go). May be async. */
export type RequestPruner = (
  request: ChatRequest,
  info: PruneInfo,
) => ChatRequest | Promise<ChatRequest>;

/** Estimated tokens of one image in a request. */
export const IMAGE_TOKENS = 800;

const TIMELINE = "[Conversation so far]";
const CUT = (n: number) => `\n[… ${n} characters cut to fit the context window …]\n`;

/** Estimated tokens of a whole request (message texts, tool calls and tool schemas). */
export function requestTokens(request: ChatRequest, count: TokenCounter): number {
  let total = 0;
  for (const m of request.messages) {
    total += count(m.content) + 4;
    // Providers bill an image by its tiles; 800 covers a 1024-pixel photo at high detail.
    if (m.role === "user") total += (m.images?.length ?? 0) * IMAGE_TOKENS;
    if (m.role === "assistant") {
      for (const c of m.toolCalls ?? []) total += count(c.name) + count(c.arguments);
    }
  }
  for (const t of request.tools ?? []) {
    total += count(t.name) + count(t.description) + count(JSON.stringify(t.parameters));
  }
  return total;
}

/** The default pruner: timeline lines, then tool results; never the persona or user text. */
export function pruneRequest(request: ChatRequest, info: PruneInfo): ChatRequest {
  const messages = request.messages.map((m) => ({ ...m })) as ChatMessage[];
  const over = () => requestTokens({ ...request, messages }, info.count) - info.targetTokens;
  const system = messages.find((m) => m.role === "system");
  if (system && over() > 0) system.content = dropTimeline(system.content, over, info.count);
  for (const m of messages) {
    const excess = over();
    if (excess <= 0) break;
    if (m.role === "tool") m.content = cutMiddle(m.content, excess, info.count);
  }
  return { ...request, messages };
}

/** Drop the oldest lines of the timeline block until `over()` is at most 0 (or none is left). */
function dropTimeline(text: string, over: () => number, count: TokenCounter): string {
  const at = text.lastIndexOf(TIMELINE);
  const end = at < 0 ? -1 : text.indexOf("\n", at); // the header may say what was left out
  if (end < 0) return text;
  const head = text.slice(0, end + 1);
  const lines = text.slice(end + 1).split("\n");
  let excess = over();
  let drop = 0;
  while (drop < lines.length && excess > 0) excess -= count(lines[drop++]!) + 1;
  const kept = lines.slice(drop);
  return kept.length > 0 ? head + kept.join("\n") : text.slice(0, at).trimEnd();
}

/**
 * Cut at least `excess` tokens out of the middle of `text`, keeping its head and tail. Tokens
 * are not spread evenly over characters, and the marker costs some, so the cut is measured and
 * made deeper until it is enough (or only the marker would be left).
 */
function cutMiddle(text: string, excess: number, count: TokenCounter): string {
  const tokens = count(text);
  if (tokens <= 16) return text;
  const goal = tokens - excess;
  let keep = Math.floor(text.length * Math.max(0, (goal - 16) / tokens));
  for (let attempt = 0; attempt < 4; attempt++) {
    if (keep >= text.length) return text;
    const head = Math.ceil(keep / 2);
    const tail = keep - head;
    const cut = text.slice(0, head) + CUT(text.length - keep) + (tail > 0 ? text.slice(-tail) : "");
    const over = count(cut) - goal;
    if (over <= 0 || keep === 0) return cut;
    keep = Math.max(0, Math.floor(keep * (1 - over / Math.max(1, count(cut))) - 8));
  }
  return CUT(text.length).trim();
}
