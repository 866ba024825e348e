/**
 * The chat view: the conversation across channels (history paged backwards as you scroll up,
 * live messages below), a search over the whole history, the owner's questions, and the
 * message box anchored at the bottom (Enter sends, Shift-Enter breaks the line, Esc stops).
 */
import { Fragment, h } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, messageOf } from "./_api.ts";
import {
  busy,
  historyProblem,
  type HistoryTurn,
  loadOlder,
  type Message,
  messages,
  olderCursor,
  stopTurn,
  submit,
  takeBootHistory,
  turnMessages,
} from "./_chat_store.ts";
import { Bubble, DayLine } from "./_bubble.ts";
import { Questions } from "./_questions.ts";
import { dayOf, t } from "./_i18n.ts";
import { AttachBar, onDrop, onPaste, pending, takePending } from "./_attach.ts";

function Log({ list }: { list: Message[] }) {
  let day = "";
  return h(
    Fragment,
    null,
    list.map((m) => {
      const d = dayOf(m.at);
      const line = d !== day ? h(DayLine, { key: "d" + m.key, at: m.at }) : null;
      day = d;
      return h(Fragment, { key: m.key }, line, h(Bubble, { m }));
    }),
  );
}

/** Keeps the log at the bottom unless the owner scrolled up; keeps the place when older pages come. */
function useScroll(box: { current: HTMLDivElement | null }, list: Message[]) {
  const state = useRef({ height: 0, first: "", atBottom: true });
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const s = state.current;
    const first = list[0]?.key ?? "";
    const last = list.at(-1);
    // The owner just sent something: show it, wherever they had scrolled to.
    if (last?.role === "user" && last.turnId === undefined) s.atBottom = true;
    if (s.first !== "" && first !== s.first && s.height > 0) {
      el.scrollTop += el.scrollHeight - s.height; // older messages came in above
    } else if (s.atBottom) el.scrollTop = el.scrollHeight;
    s.height = el.scrollHeight;
    s.first = first;
  }, [list]);
  return () => {
    const el = box.current!;
    state.current.atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    if (el.scrollTop < 40 && olderCursor.value) void loadOlder();
  };
}

function Composer() {
  const input = useRef<HTMLTextAreaElement>(null);
  const go = (e: Event) => {
    e.preventDefault();
    const el = input.current!;
    const text = el.value.trim();
    if (text === "" && pending.value.length === 0) return;
    el.value = "";
    el.style.height = "";
    void submit(text, takePending().map((a) => a.digest));
  };
  const grow = () => {
    const el = input.current!;
    el.style.height = "";
    el.style.height = `${Math.min(el.scrollHeight, 200)}px`;
  };
  return h(
    "form",
    {
      id: "chat",
      class: "composer",
      onSubmit: go,
      onDrop,
      onDragOver: (e: DragEvent) => e.preventDefault(),
    },
    h(AttachBar, null),
    h("label", { for: "text", class: "sr-only" }, t("placeholder")),
    h("textarea", {
      id: "text",
      ref: input,
      rows: 1,
      placeholder: t("placeholder"),
      enterkeyhint: "send",
      onInput: grow,
      onPaste,
      onKeyDown: (e: KeyboardEvent) => {
        if (e.key === "Enter" && !e.shiftKey && !e.isComposing) go(e);
      },
    }),
    busy()
      ? h("button", { type: "button", id: "stop", class: "danger", onClick: stopTurn }, t("stop"))
      : null,
    h("button", { type: "submit", id: "send" }, t("send")),
  );
}

function Search({ onClose }: { onClose: () => void }) {
  const [q, setQ] = useState("");
  const [found, setFound] = useState<{ list: Message[]; before?: string } | undefined>();
  const [problem, setProblem] = useState("");
  const run = (before?: string) =>
    api<{ turns: HistoryTurn[]; before?: string }>(
      `/api/v1/chat/history?limit=20&q=${encodeURIComponent(q)}` +
        (before ? `&before=${encodeURIComponent(before)}` : ""),
    ).then((page) => {
      const list = page.turns.flatMap(turnMessages);
      setFound((old) => ({ list: before ? [...list, ...(old?.list ?? [])] : list, ...page }));
      setProblem("");
    }, (e) => setProblem(messageOf(e)));
  return h(
    "div",
    { class: "search-pane" },
    h(
      "form",
      {
        role: "search",
        class: "row",
        onSubmit: (e: Event) => (e.preventDefault(), q.trim() !== "" && void run()),
      },
      h("input", {
        id: "chat-search",
        type: "search",
        "aria-label": t("searchHistory"),
        placeholder: t("searchHistory"),
        value: q,
        onInput: (e: Event) => setQ((e.target as HTMLInputElement).value),
        onKeyDown: (e: KeyboardEvent) => e.key === "Escape" && onClose(),
      }),
      h("button", { type: "submit" }, t("search")),
      h("button", { type: "button", onClick: onClose }, t("close")),
    ),
    problem && h("div", { class: "error" }, problem),
    found && h(
      "div",
      { class: "results", id: "search-results", "aria-live": "polite" },
      found.before &&
        h("button", { class: "link", onClick: () => void run(found.before) }, t("searchOlder")),
      found.list.length === 0 ? h("p", { class: "hint" }, t("noMatches")) : h(Log, found),
    ),
  );
}

/** The chat view. */
export function ChatView() {
  const box = useRef<HTMLDivElement>(null);
  const [searching, setSearching] = useState(false);
  // Before `messages` is read: the page's own history is in this first frame.
  const [fromBoot] = useState(takeBootHistory);
  const list = messages.value;
  const onScroll = useScroll(box, list);
  useEffect(() => {
    if (!fromBoot && olderCursor.value === "") void loadOlder();
  }, []);
  const empty = list.length === 0 && olderCursor.value !== "";
  return h(
    "section",
    { class: "chat", "aria-label": t("chat") },
    h(
      "div",
      { class: "chat-bar" },
      searching ? h(Search, { onClose: () => setSearching(false) }) : h("button", {
        id: "open-search",
        class: "small",
        onClick: () => setSearching(true),
      }, t("searchHistory")),
    ),
    h(
      "div",
      { id: "log", class: "log", ref: box, onScroll, tabIndex: 0, "aria-label": t("conversation") },
      historyProblem.value && h("div", { class: "error" }, historyProblem.value),
      olderCursor.value
        ? h("button", { id: "older", class: "link", onClick: () => void loadOlder() }, t("older"))
        : list.length > 0 && h("p", { class: "hint start" }, t("historyStart")),
      empty && h("div", { class: "empty" }, h("p", null, t("chatEmpty"))),
      h(Log, { list }),
    ),
    h(Questions, null),
    h(Composer, null),
  );
}
