/**
 * The conversation on the page: history pages from the text log, then live kernel events over
 * SSE. Every message knows its turn, source and channel, so inputs typed in the terminal or
 * sent by a timer appear beside the owner's own, and a reply streams into its turn's bubble.
 */
import { signal } from "@preact/signals";
import { api, messageOf, send } from "./_api.ts";
import { takeBoot } from "./_boot.ts";

/** One tool call under a reply. */
export interface ToolView {
  id: string;
  name: string;
  args: string;
  state: "running" | "ok" | "failed";
}

/** One bubble. */
export interface Message {
  key: string;
  role: "user" | "agent" | "event" | "notice";
  turnId?: string;
  source: string;
  channel: string;
  text: string;
  reasoning: string;
  tools: ToolView[];
  /** The pipeline stage or the last notice while the turn runs. */
  stage?: string;
  status?: string;
  done: boolean;
  at: number;
  /** Digests of the images it carries (sent with it, or attached to the reply). */
  images?: string[];
}

/** A turn as GET /api/v1/chat/history returns it. */
export interface HistoryTurn {
  turnId: string;
  source: string;
  channel: string;
  input: string;
  reply: string;
  inputAt: number;
  replyAt: number;
  status?: string;
  tools?: { name: string; ok: boolean }[];
  sent?: { channel: string; text: string }[];
}

/** Sources that are not a person typing: their inputs read as events, not as the owner's words. */
const MACHINE_SOURCES = new Set(["timer", "kernel", "agentcli", "healthcheck", "triage", "cmd"]);

/** Kernel state from `status` events. */
export const kernelState = signal<{ state: string; pending: number }>({
  state: "idle",
  pending: 0,
});
/** The conversation, oldest first. */
export const messages = signal<Message[]>([]);
/** Cursor of the next older history page; "" before the first load, undefined at the start. */
export const olderCursor = signal<string | undefined>("");
/** Why history could not be read (shown above the log). */
export const historyProblem = signal("");
/** The SSE stream is connected. */
export const live = signal(false);

/** Events of turns whose bubble does not exist yet (their POST has not answered). */
const early = new Map<string, Record<string, unknown>[]>();
let counter = 0;
const nextKey = () => `m${++counter}`;

function blank(role: Message["role"], extra: Partial<Message>): Message {
  return {
    key: nextKey(),
    role,
    source: "web",
    channel: "web",
    text: "",
    reasoning: "",
    tools: [],
    done: true,
    at: Date.now(),
    ...extra,
  };
}

function inputRole(source: string): Message["role"] {
  return MACHINE_SOURCES.has(source) ? "event" : "user";
}

/** The bubbles of one logged turn: the input, what it sent through channels, the reply. */
export function turnMessages(turn: HistoryTurn): Message[] {
  const base = { turnId: turn.turnId, source: turn.source, channel: turn.channel };
  const sent = (turn.sent ?? []).map((s) =>
    blank("agent", { source: turn.source, channel: s.channel, text: s.text, at: turn.replyAt })
  );
  const tools = (turn.tools ?? []).map((x, i): ToolView => ({
    id: `${turn.turnId}:${i}`,
    name: x.name,
    args: "",
    state: x.ok ? "ok" : "failed",
  }));
  return [
    blank(inputRole(turn.source), { ...base, text: turn.input, at: turn.inputAt }),
    ...sent,
    blank("agent", { ...base, text: turn.reply, tools, status: turn.status, at: turn.replyAt }),
  ];
}

/** Load the next older page (the newest on the first call). */
export async function loadOlder(): Promise<void> {
  const before = olderCursor.value;
  if (before === undefined) return;
  try {
    const page = await api<{ turns: HistoryTurn[]; before?: string }>(
      `/api/v1/chat/history?limit=30${before ? `&before=${encodeURIComponent(before)}` : ""}`,
    );
    const known = new Set(messages.value.flatMap((m) => m.turnId ?? []));
    const older = page.turns.filter((turn) => !known.has(turn.turnId)).flatMap(turnMessages);
    messages.value = [...older, ...messages.value];
    olderCursor.value = page.before;
    historyProblem.value = "";
  } catch (error) {
    historyProblem.value = messageOf(error);
  }
}

/**
 * The newest page as the server wrote it into the page (web/_boot.ts), taken while the chat
 * draws its first frame; false when the page has none (or it is gone: app.ts drops it when
 * another view came first, as it was read when the page loaded) and the API must be asked.
 */
export function takeBootHistory(): boolean {
  const page = takeBoot("history");
  if (page === undefined) return false;
  if ("error" in page) historyProblem.value = page.error.message;
  else {
    messages.value = (page.turns as HistoryTurn[]).flatMap(turnMessages);
    olderCursor.value = page.before;
  }
  return true;
}

/** Forget what is shown and load the newest page again (after missed live events). */
export async function reloadHistory(): Promise<void> {
  const running = messages.value.filter((m) => !m.done);
  messages.value = [];
  olderCursor.value = "";
  await loadOlder();
  const shown = new Set(messages.value.flatMap((m) => m.turnId ?? []));
  messages.value = [...messages.value, ...running.filter((m) => !shown.has(m.turnId ?? ""))];
}

function replace(index: number, change: (m: Message) => void): void {
  const list = messages.value;
  const copy = { ...list[index]!, tools: [...list[index]!.tools] };
  change(copy);
  messages.value = [...list.slice(0, index), copy, ...list.slice(index + 1)];
}

/** The reply of `turnId` is here and done. */
function finished(turnId: string): boolean {
  return messages.value.findLast((m) => m.turnId === turnId && m.role === "agent")?.done === true;
}

/** Apply `change` to the reply bubble of `turnId`; false when there is none yet. */
function update(turnId: string, change: (m: Message) => void): boolean {
  const index = messages.value.findLastIndex((m) => m.turnId === turnId && m.role === "agent");
  if (index < 0) return false;
  replace(index, change);
  return true;
}

function addReply(turnId: string, source: string, channel: string): void {
  if (messages.value.some((m) => m.turnId === turnId && m.role === "agent")) return;
  messages.value = [
    ...messages.value,
    blank("agent", { turnId, source, channel, done: false }),
  ];
  for (const event of early.get(turnId) ?? []) apply(event.type as string, event);
  early.delete(turnId);
}

/** An `input` event: a message typed here, in another tab, the terminal, or a plugin's. */
function onInput(event: Record<string, unknown>): void {
  const turnId = String(event.turnId);
  const source = String(event.source);
  const channel = String(event.channel);
  if (messages.value.some((m) => m.turnId === turnId)) return;
  const mine = messages.value.findIndex((m) =>
    m.role === "user" && m.turnId === undefined && m.text === event.text
  );
  if (mine >= 0 && source === "web") replace(mine, (m) => m.turnId = turnId);
  else {
    messages.value = [
      ...messages.value,
      blank(inputRole(source), {
        turnId,
        source,
        channel,
        text: String(event.text),
        at: Number(event.receivedAt) || Date.now(),
      }),
    ];
  }
  addReply(turnId, source, channel);
}

function toolView(event: Record<string, unknown>): ToolView {
  const call = event.call as { id: string; name: string; arguments: unknown };
  const state = event.phase === "start" ? "running" : event.ok === false ? "failed" : "ok";
  const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
  return { id: call.id, name: call.name, args, state };
}

function applyToTurn(type: string, event: Record<string, unknown>, m: Message): void {
  switch (type) {
    case "content_delta":
      m.text = event.reset ? "" : m.text + (event.text as string);
      break;
    case "reasoning_delta":
      m.reasoning = event.reset ? "" : m.reasoning + (event.text as string);
      break;
    case "stage":
      m.stage = event.stage as string;
      break;
    case "tool_call": {
      const view = toolView(event);
      const at = m.tools.findIndex((x) => x.id === view.id);
      if (at < 0) m.tools.push(view);
      else m.tools[at] = view;
      break;
    }
    case "agent_llm_chain":
      if (typeof event.reasoning === "string" && m.reasoning === "") m.reasoning = event.reasoning;
      break;
    case "notice":
      m.stage = "notice:" + String(event.text);
      break;
    case "output":
      // A stopped reply keeps what had streamed so far; the status line says it stopped.
      if (event.status !== "stopped" || m.text === "") m.text = event.text as string;
      m.status = event.status as string;
      m.images = ((event.media ?? []) as { digest: string }[]).map((r) => r.digest);
      m.done = true;
      m.stage = undefined;
      m.at = Date.now();
      break;
  }
}

/** Apply one kernel event to the conversation. */
export function apply(type: string, event: Record<string, unknown>): void {
  if (type === "input") return onInput(event);
  if (type === "web_message") {
    const text = String(event.text);
    messages.value = [...messages.value, blank("agent", { text, at: Number(event.at) })];
    return;
  }
  const turnId = event.turnId as string | undefined;
  if (turnId === undefined) return;
  // A finished reply takes no more of its stream: the stream replayed from the page's boot id
  // can repeat a turn the boot history already shows whole.
  if (finished(turnId) && type !== "output") return;
  if (update(turnId, (m) => applyToTurn(type, event, m))) return;
  const list = early.get(turnId) ?? [];
  list.push({ ...event, type });
  early.set(turnId, list.slice(-500));
  if (early.size > 50) early.delete(early.keys().next().value!);
}

/**
 * Send `text` (and the digests of images uploaded for it) from this page; the bubble shows at
 * once, the reply streams into the next.
 */
export async function submit(text: string, images: string[] = []): Promise<void> {
  const local = { ...blank("user", { text }), images };
  messages.value = [...messages.value, local];
  try {
    const body = images.length > 0 ? { text, media: images } : { text };
    const { turnId } = await send<{ turnId: string }>("POST", "/api/v1/chat", body);
    const index = messages.value.findIndex((m) => m.key === local.key);
    if (index >= 0 && messages.value[index]!.turnId === undefined) {
      replace(index, (m) => m.turnId = turnId);
    }
    addReply(turnId, "web", "web");
  } catch (error) {
    messages.value = [...messages.value, blank("notice", { text: messageOf(error) })];
  }
}

/** The owner's stop. */
export function stopTurn(): void {
  void send("POST", "/api/v1/chat/stop").catch(() => {});
}

/** Something runs: the kernel says so, or a reply of this page is unfinished. */
export function busy(): boolean {
  return kernelState.value.state === "busy" ||
    messages.value.some((m) => m.role === "agent" && !m.done);
}
