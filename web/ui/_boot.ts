/**
 * The first frame's data the server wrote into the page (web/_boot.ts: the newest history page,
 * whether setup is due, the waiting questions, the SSE id they were read at). Each part is taken
 * once: later loads (a reconnect, a login in this page) ask the API.
 */

/**
 * The block's data; a part is absent when the page should ask the API. Turns and questions are
 * as the history and questions routes give them (their modules read them as their own types).
 */
export interface Boot {
  history?: { turns: unknown[]; before?: string } | {
    error: { code: string; message: string };
  };
  setupNeeded?: boolean;
  questions?: unknown[];
  eventId?: number;
}

/**
 * The block, checked against the shape the server validated it with (web/_boot.ts BootSchema;
 * zod itself is not in the page's bundle): a part of the wrong shape counts as absent.
 */
function readBoot(): Boot {
  const text = document.getElementById("boot")?.textContent;
  if (!text) return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return {}; // unreadable: the page asks the API, as a page without the block does
  }
  if (typeof data !== "object" || data === null) return {};
  const d = data as Record<string, unknown>;
  const history = d.history as Record<string, unknown> | undefined;
  const historyOk = typeof history === "object" && history !== null &&
    (Array.isArray(history.turns) || typeof (history.error as { message?: unknown })?.message ===
        "string");
  return {
    history: historyOk ? history as Boot["history"] : undefined,
    setupNeeded: typeof d.setupNeeded === "boolean" ? d.setupNeeded : undefined,
    questions: Array.isArray(d.questions) ? d.questions : undefined,
    eventId: Number.isInteger(d.eventId) ? d.eventId as number : undefined,
  };
}

const boot = readBoot();

/** The boot block's `key`, the first time it is asked for; undefined after that or when absent. */
export function takeBoot<K extends keyof Boot>(key: K): Boot[K] | undefined {
  const value = boot[key];
  delete boot[key];
  return value;
}
