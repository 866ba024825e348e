/**
 * What the chat's first frame needs, written into the logged-in page itself (docs/web.md "First
 * load"): the newest history page (or the error its route would answer), whether the setup
 * screen is due, the owner's waiting questions, and the SSE event id they were read at. The page
 * draws the chat from it without an API round trip and asks the API, as before, for anything
 * absent. History holds hostile text: the block is JSON with every `<`, `>` and `&` escaped, so
 * no text can end the script element or open another.
 */
import { z } from "zod";
import { errorMessage } from "../core/mod.ts";
import type { WebDeps } from "./ports.ts";
import { errorResponse, notWired } from "./_http.ts";

/** One logged turn as `GET /api/v1/chat/history` and the boot block carry it. */
const HistoryTurnSchema = z.lazy(() =>
  z.object({
    turnId: z.string(),
    source: z.string(),
    channel: z.string(),
    sender: z.string().optional(),
    input: z.string(),
    reply: z.string(),
    inputAt: z.number(),
    replyAt: z.number(),
    status: z.string().optional(),
    tools: z.array(z.object({ name: z.string(), ok: z.boolean() })).optional(),
    sent: z.array(z.object({ channel: z.string(), text: z.string() })).optional(),
  })
);

/** A page of history: the answer of `GET /api/v1/chat/history` and the boot block's `history`. */
export const HistoryPageSchema = z.lazy(() =>
  z.object({
    turns: z.array(HistoryTurnSchema),
    before: z.string().optional(),
  })
);

const QuestionSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    plugin: z.string(),
    title: z.string(),
    detail: z.string(),
    turnId: z.string().optional(),
    askedAt: z.number(),
    expiresAt: z.number(),
  })
);

/** The boot block; each part absent when the page should ask the API for it. */
export const BootSchema = z.lazy(() =>
  z.object({
    /** The newest page, or the error body the history route would answer. */
    history: z.union([
      HistoryPageSchema,
      z.object({ error: z.object({ code: z.string(), message: z.string() }) }),
    ]),
    /** True when no LLM source is configured (the page opens on #setup). */
    setupNeeded: z.boolean().optional(),
    questions: z.array(QuestionSchema).optional(),
    /** The SSE id the rest was read at: the page's stream replays what came after it. */
    eventId: z.number().int().nonnegative(),
  })
);
/** The boot block's data. */
export type Boot = z.infer<typeof BootSchema>;

/** The newest page the chat shows first (the page asks for older ones as it scrolls). */
export const FIRST_PAGE_TURNS = 30;

/** The boot data of a logged-in page, validated; `eventId` is the SSE hub's last id. */
export async function bootData(deps: WebDeps, eventId: number): Promise<Boot> {
  return BootSchema.parse({
    history: await firstPage(deps),
    // As GET /api/v1/setup says it; without a setup port that route fails and the page keeps to
    // the chat, as it does with `false`. Without a question port there are none to show.
    setupNeeded: deps.setup !== undefined && (deps.llm?.sources() ?? []).length === 0,
    questions: deps.questions?.pending() ?? [],
    eventId,
  });
}

async function firstPage(deps: WebDeps): Promise<Boot["history"]> {
  try {
    if (!deps.history) throw notWired("conversation history");
    return HistoryPageSchema.parse(await deps.history.history({ limit: FIRST_PAGE_TURNS }));
  } catch (error) {
    // The page shows it above the log, as it shows the route's answer.
    const { status, code, message } = errorResponse(error);
    if (status >= 500 && status !== 501) {
      deps.logger?.error("Reading the chat history for the page failed", {
        message: errorMessage(error),
      });
    }
    return { error: { code, message } };
  }
}

/** `<script type="application/json" id="boot">` with `boot`, safe against any text in it. */
export function bootScript(boot: Boot): string {
  return `<script type="application/json" id="boot">${scriptJson(boot)}</script>`;
}

/**
 * JSON that cannot end or open an element inside `<script>`: `<`, `>` and `&` (and the line
 * separators some parsers break on) as `\u` escapes, which JSON.parse reads back unchanged.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
