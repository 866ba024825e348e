/** The chat view: messages, streamed replies over SSE, stop, reasoning and tool calls folded. */
import { h } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { signal } from "@preact/signals";
import { messageOf, send } from "./_api.ts";
import { renderMarkdown } from "./_markdown.ts";
import { t } from "./_i18n.ts";

interface ToolView {
  id: string;
  name: string;
  args: string;
  state: "running" | "ok" | "failed";
}

interface Message {
  key: string;
  role: "user" | "agent" | "notice";
  turnId?: string;
  text: string;
  reasoning: string;
  tools: ToolView[];
  stage?: string;
  status?: string;
  done: boolean;
}

/** Kernel state from `status` events. */
export const kernelState = signal<{ state: string; pending: number }>({
  state: "idle",
  pending: 0,
});
const messages = signal<Message[]>([]);
const banner = signal<string>("");
/** Events for turns whose POST has not answered yet. */
const early = new Map<string, Record<string, unknown>[]>();
let counter = 0;

function update(turnId: string, change: (m: Message) => void): boolean {
  const list = messages.value;
  const index = list.findIndex((m) => m.turnId === turnId && m.role === "agent");
  if (index < 0) return false;
  const copy = { ...list[index]!, tools: [...list[index]!.tools] };
  change(copy);
  messages.value = [...list.slice(0, index), copy, ...list.slice(index + 1)];
  return true;
}

/** Apply one kernel event to the message of its turn. */
function apply(type: string, event: Record<string, unknown>): void {
  const turnId = event.turnId as string | undefined;
  if (turnId === undefined) return;
  const found = update(turnId, (m) => {
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
        const call = event.call as { id: string; name: string; arguments: unknown };
        const state = event.phase === "start" ? "running" : event.ok === false ? "failed" : "ok";
        const args = typeof call.arguments === "string"
          ? call.arguments
          : JSON.stringify(call.arguments);
        const at = m.tools.findIndex((x) => x.id === call.id);
        const view = { id: call.id, name: call.name, args, state } as ToolView;
        if (at < 0) m.tools.push(view);
        else m.tools[at] = view;
        break;
      }
      case "agent_llm_chain":
        if (typeof event.reasoning === "string" && m.reasoning === "") {
          m.reasoning = event.reasoning;
        }
        break;
      case "notice":
        m.stage = event.text as string;
        break;
      case "output":
        // A stopped reply keeps what had streamed so far; the status line says it stopped.
        if (event.status !== "stopped" || m.text === "") m.text = event.text as string;
        m.status = event.status as string;
        m.done = true;
        m.stage = undefined;
        break;
    }
  });
  if (!found) {
    const list = early.get(turnId) ?? [];
    list.push({ ...event, type });
    early.set(turnId, list.slice(-500));
    if (early.size > 50) early.delete(early.keys().next().value!);
  }
}

const TURN_EVENTS = [
  "content_delta",
  "reasoning_delta",
  "stage",
  "tool_call",
  "agent_llm_chain",
  "notice",
  "output",
];

/** Open the SSE stream (EventSource reconnects with Last-Event-ID by itself). */
export function connectEvents(): EventSource {
  const source = new EventSource("/api/v1/chat/events");
  for (const type of TURN_EVENTS) {
    source.addEventListener(type, (e) => apply(type, JSON.parse((e as MessageEvent).data)));
  }
  source.addEventListener("status", (e) => {
    kernelState.value = JSON.parse((e as MessageEvent).data);
  });
  source.addEventListener("hello", () => {
    document.body.dataset.sse = "open";
  });
  source.addEventListener("sync_required", () => {
    banner.value = t("resync");
  });
  return source;
}

async function submit(text: string): Promise<void> {
  const key = String(++counter);
  messages.value = [
    ...messages.value,
    { key: key + "u", role: "user", text, reasoning: "", tools: [], done: true },
  ];
  try {
    const { turnId } = await send<{ turnId: string }>("POST", "/api/v1/chat", { text });
    messages.value = [...messages.value, {
      key: key + "a",
      role: "agent",
      turnId,
      text: "",
      reasoning: "",
      tools: [],
      done: false,
    }];
    for (const event of early.get(turnId) ?? []) apply(event.type as string, event);
    early.delete(turnId);
  } catch (error) {
    messages.value = [...messages.value, {
      key: key + "e",
      role: "notice",
      text: messageOf(error),
      reasoning: "",
      tools: [],
      done: true,
    }];
  }
}

function Bubble({ m }: { m: Message }) {
  if (m.role !== "agent") {
    return h("div", { class: `msg ${m.role}` }, h("div", { class: "text plain" }, m.text));
  }
  const failed = m.status === "error" || m.status === "refused";
  return h(
    "div",
    {
      class: `msg agent${m.done ? " done" : " live"}${failed ? " failed" : ""}`,
      "data-turn": m.turnId,
    },
    !m.done && h("div", { class: "phase" }, `${t("phase")}: ${m.stage ?? "…"}`),
    m.reasoning !== "" &&
      h(
        "details",
        { class: "reasoning" },
        h("summary", null, t("reasoning")),
        h("pre", null, m.reasoning),
      ),
    m.tools.length > 0 && h(
      "details",
      { class: "tools" },
      h("summary", null, `${t("tools")} (${m.tools.length})`),
      h(
        "ul",
        null,
        m.tools.map((x) =>
          h("li", { key: x.id, class: x.state }, h("code", null, x.name), " ", x.args)
        ),
      ),
    ),
    h("div", {
      class: "text",
      dangerouslySetInnerHTML: { __html: renderMarkdown(m.text || (m.done ? "" : "…")) },
    }),
    m.status === "stopped" && h("div", { class: "status" }, t("stopped")),
  );
}

/** The chat view. */
export function ChatView() {
  const input = useRef<HTMLTextAreaElement>(null);
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => end.current?.scrollIntoView({ block: "end" }), [messages.value]);
  const busy = kernelState.value.state === "busy" ||
    messages.value.some((m) => m.role === "agent" && !m.done);
  const go = (e: Event) => {
    e.preventDefault();
    const text = input.current!.value.trim();
    if (text === "") return;
    input.current!.value = "";
    void submit(text);
  };
  return h(
    "section",
    { class: "chat" },
    banner.value !== "" &&
      h("div", { class: "banner", onClick: () => banner.value = "" }, banner.value),
    h(
      "div",
      { id: "log", class: "log" },
      messages.value.map((m) => h(Bubble, { key: m.key, m })),
      h("div", { ref: end }),
    ),
    h(
      "form",
      { id: "chat", onSubmit: go },
      h("textarea", {
        id: "text",
        ref: input,
        rows: 2,
        placeholder: t("placeholder"),
        onKeyDown: (e: KeyboardEvent) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) go(e);
        },
      }),
      h("button", { type: "submit", id: "send" }, t("send")),
      busy && h("button", {
        type: "button",
        id: "stop",
        class: "danger",
        onClick: () => void send("POST", "/api/v1/chat/stop").catch(() => {}),
      }, t("stop")),
    ),
  );
}
