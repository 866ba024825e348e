/**
 * The page's one SSE connection (EventSource reconnects with Last-Event-ID by itself): turn
 * events into the conversation, kernel state, the owner's questions, plugin crashes.
 */
import { signal } from "@preact/signals";
import { api } from "./_api.ts";
import { apply, kernelState, live, reloadHistory } from "./_chat_store.ts";
import { takeBoot } from "./_boot.ts";

/** A question a plugin puts to the owner (cmd's "run this?"). */
export interface OwnerQuestion {
  id: string;
  plugin: string;
  title: string;
  detail: string;
  turnId?: string;
  askedAt: number;
  expiresAt: number;
}

/** Questions waiting for the owner. */
export const questions = signal<OwnerQuestion[]>([]);
/** Plugin crashes seen since the page opened, newest last. */
export const crashes = signal<{ plugin: string; reason: string; at: number }[]>([]);

const TURN_EVENTS = [
  "input",
  "web_message",
  "content_delta",
  "reasoning_delta",
  "stage",
  "tool_call",
  "agent_llm_chain",
  "notice",
  "output",
];

/**
 * Load the questions waiting now (after a reconnect the stream may have missed some); the first
 * time from the page's boot block when it has them.
 */
export function loadQuestions(): void {
  const written = takeBoot("questions");
  if (written) {
    questions.value = written as OwnerQuestion[];
    return;
  }
  void api<{ questions: OwnerQuestion[] }>("/api/v1/questions").then(
    (r) => questions.value = r.questions,
    () => {}, // no question port in this daemon: nothing to show
  );
}

/** Open the stream; close the returned source to stop. */
export function connectEvents(): EventSource {
  // From the id the page's boot block was read at: what happened since is replayed (or the
  // stream says sync_required and the history is read again).
  const since = takeBoot("eventId");
  const source = new EventSource(
    "/api/v1/chat/events" + (since === undefined ? "" : `?lastEventId=${since}`),
  );
  const on = (type: string, fn: (data: Record<string, unknown>) => void) =>
    source.addEventListener(type, (e) => fn(JSON.parse((e as MessageEvent).data)));
  for (const type of TURN_EVENTS) on(type, (data) => apply(type, data));
  on("status", (data) => kernelState.value = data as typeof kernelState.value);
  on("owner_question", (data) => {
    const question = data.question as OwnerQuestion;
    questions.value = [...questions.value.filter((q) => q.id !== question.id), question];
  });
  on("owner_answered", (data) => {
    questions.value = questions.value.filter((q) => q.id !== data.id);
  });
  on("plugin_crashed", (data) => {
    const crash = { plugin: String(data.plugin), reason: String(data.reason), at: Date.now() };
    crashes.value = [...crashes.value.slice(-19), crash];
  });
  on("hello", () => {
    live.value = true;
    document.body.dataset.sse = "open";
  });
  on("sync_required", () => {
    void reloadHistory();
    loadQuestions();
  });
  source.addEventListener("error", () => live.value = false);
  return source;
}
