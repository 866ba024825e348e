/**
 * Documents and the context window read as conversations: a bubble per turn, the owner's on one
 * side and the agent's on the other, each with its channel and its time in the owner's locale.
 */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, messageOf } from "./_api.ts";
import { dayOf, stampOf, t, timeOf, tMaybe } from "./_i18n.ts";
import { value } from "./_load.ts";

/** One turn of a conversation. */
export interface Turn {
  who: "owner" | "agent" | "summary";
  /** The channel or source it came through ("web", "cli"). */
  via: string;
  at?: number;
  text: string;
}

/** A turn's time: the clock time today, the date too on another day (owner's locale). */
function when(ms: number): string {
  return new Date(ms).toDateString() === new Date().toDateString() ? timeOf(ms) : stampOf(ms);
}

const LINE = /^\[(\d{4}-\d\d-\d\d) (\d\d:\d\d)\] ([^:\n]{1,80}): ?(.*)$/;

/**
 * A document's text as turns: each "[YYYY-MM-DD HH:MM] who: text" line (UTC, as the context
 * window writes it; "you" is the agent) starts one, other lines continue it; text before the
 * first such line is one turn of its own.
 */
export function parseTurns(content: string): Turn[] {
  const turns: Turn[] = [];
  for (const line of content.split("\n")) {
    const m = LINE.exec(line);
    if (m) {
      const [, day, time, who, text] = m;
      turns.push({
        who: who === "you" ? "agent" : "owner",
        via: who === "you" ? "" : who!,
        at: Date.parse(`${day}T${time}:00Z`),
        text: text!,
      });
    } else if (turns.length > 0) turns.at(-1)!.text += "\n" + line;
    else if (line.trim() !== "") turns.push({ who: "summary", via: "", text: line });
  }
  return turns;
}

/** Turns as bubbles. */
export function Conversation({ turns, label }: { turns: Turn[]; label: string }) {
  return h(
    "ol",
    { class: "talk", "aria-label": label },
    turns.map((turn, i) =>
      h(
        "li",
        { key: i, class: `turn ${turn.who}` },
        h(
          "div",
          { class: "meta" },
          h(
            "span",
            null,
            turn.who === "agent" ? t("agentSaid") : tMaybe(`channel_${turn.via}`, turn.via),
          ),
          turn.at !== undefined &&
            h(
              "time",
              { dateTime: new Date(turn.at).toISOString(), title: stampOf(turn.at) },
              when(turn.at),
            ),
        ),
        h("div", { class: "text" }, turn.text),
      )
    ),
  );
}

interface Doc {
  id: string;
  summary: string;
  source?: string;
  createdAt: number;
  score?: number;
}

function DocumentTurns({ id }: { id: string }) {
  const [turns, setTurns] = useState<Turn[] | undefined>();
  const [error, setError] = useState("");
  useEffect(() => {
    void api<{ document: { content: string } }>(`/api/v1/memory/documents/${id}`)
      .then((r) => setTurns(parseTurns(r.document.content)), (e) => setError(messageOf(e)));
  }, [id]);
  if (error) return h("div", { class: "error" }, error);
  if (!turns) return h("p", { class: "hint" }, t("loading"));
  return h(Conversation, { turns, label: t("documentTalk") });
}

/** A one-line query form: an input bound to `q` and a button that runs `submit`. */
function queryForm(
  q: string,
  setQ: (v: string) => void,
  submit: () => void,
  label: string,
  button: string,
) {
  return h(
    "form",
    { class: "row", role: "search", onSubmit: (e: Event) => (e.preventDefault(), void submit()) },
    h("input", {
      type: "search",
      value: q,
      placeholder: label,
      "aria-label": label,
      onInput: (e: Event) => setQ(value(e)),
    }),
    h("button", { type: "submit" }, button),
  );
}

/** The documents tab: newest first or a search; each opens as the conversation it holds. */
export function DocumentsTab() {
  const [q, setQ] = useState("");
  const [docs, setDocs] = useState<Doc[] | undefined>();
  const [open, setOpen] = useState<string | undefined>();
  const [error, setError] = useState("");
  const load = () =>
    api<{ documents: Doc[] }>(`/api/v1/memory/documents?q=${encodeURIComponent(q)}`)
      .then((r) => setDocs(r.documents), (e) => setError(messageOf(e)));
  useEffect(() => void load(), []);
  return h(
    "div",
    null,
    queryForm(q, setQ, load, t("searchDocuments"), t("search")),
    error && h("div", { class: "error" }, error),
    docs?.length === 0 && h("p", { class: "empty" }, t("noDocuments")),
    h(
      "ul",
      { class: "docs" },
      (docs ?? []).map((d) =>
        h(
          "li",
          { key: d.id, "data-document": d.id },
          h(
            "button",
            {
              class: "link doc-head",
              "aria-expanded": open === d.id,
              onClick: () => setOpen(open === d.id ? undefined : d.id),
            },
            h(
              "small",
              null,
              `${dayOf(d.createdAt)} ${timeOf(d.createdAt)}` +
                (d.score !== undefined ? ` · ${t("score")} ${d.score.toFixed(3)}` : ""),
            ),
            h("span", null, d.summary),
          ),
          open === d.id && h(DocumentTurns, { id: d.id }),
        )
      ),
    ),
  );
}

interface ContextItem {
  id: string;
  role: string;
  source: string;
  channel: string;
  text: string;
  timestamp: number;
  score?: number;
}

/** The context window as the conversation it is, each turn scored against a query. */
export function ContextTab() {
  const [q, setQ] = useState("");
  const [data, setData] = useState<{ query: string; events: ContextItem[] } | undefined>();
  const [error, setError] = useState("");
  const load = () =>
    api<{ query: string; events: ContextItem[] }>(
      `/api/v1/memory/context?q=${encodeURIComponent(q)}`,
    )
      .then(setData, (e) => setError(messageOf(e)));
  useEffect(() => void load(), []);
  const events = data?.events ?? [];
  return h(
    "div",
    null,
    queryForm(q, setQ, load, t("query"), t("score")),
    error && h("div", { class: "error" }, error),
    data && data.query !== "" &&
      h("p", { class: "hint" }, t("scoredAgainst", { query: data.query })),
    data && events.length === 0 && h("p", { class: "empty" }, t("contextEmpty")),
    h(
      "ol",
      { class: "talk", "aria-label": t("context") },
      events.map((e) =>
        h(
          "li",
          {
            key: e.id,
            class: `turn ${e.role === "agent" ? "agent" : e.role === "user" ? "owner" : "summary"}`,
          },
          h(
            "div",
            { class: "meta" },
            h(
              "span",
              null,
              e.role === "agent" ? t("agentSaid") : tMaybe(`channel_${e.channel}`, e.channel),
            ),
            h("time", {
              dateTime: new Date(e.timestamp).toISOString(),
              title: stampOf(e.timestamp),
            }, when(e.timestamp)),
            e.score !== undefined &&
              h("span", { class: "score" }, `${t("score")} ${e.score.toFixed(3)}`),
          ),
          h("div", { class: "text" }, e.text),
          h("span", {
            class: "bar",
            style: { width: `${Math.round(Math.max(0, e.score ?? 0) * 100)}%` },
          }),
        )
      ),
    ),
  );
}
