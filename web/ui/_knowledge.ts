/**
 * The knowledge base as a tree of its path names (`recipes/tea`): an entry reads as rendered
 * Markdown, and edits with its preview beside it; a new entry is written the same way.
 */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, messageOf, send } from "./_api.ts";
import { Markdown } from "./_markdown.ts";
import { t } from "./_i18n.ts";

interface KnowledgeEntry {
  name: string;
  title?: string;
  content?: string;
}

const valueOf = (e: Event) => (e.target as HTMLInputElement).value;

/** Entries by folder (`""` for the top), folders in name order. */
function tree(entries: KnowledgeEntry[]): [string, KnowledgeEntry[]][] {
  const folders = new Map<string, KnowledgeEntry[]>();
  for (const entry of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
    const folder = entry.name.includes("/") ? entry.name.slice(0, entry.name.lastIndexOf("/")) : "";
    folders.set(folder, [...(folders.get(folder) ?? []), entry]);
  }
  return [...folders].sort(([a], [b]) => a.localeCompare(b));
}

/** Text and its rendered preview side by side; `onSave` gets the text. */
function Editor(
  { name, text: initial, onSave, onCancel }: {
    name?: string;
    text: string;
    onSave: (name: string, text: string) => Promise<void>;
    onCancel?: () => void;
  },
) {
  const [text, setText] = useState(initial);
  const [path, setPath] = useState(name ?? "");
  const [problem, setProblem] = useState("");
  const submit = (e: Event) => {
    e.preventDefault();
    onSave(path, text).then(() => setProblem(""), (error) => setProblem(messageOf(error)));
  };
  return h(
    "form",
    { class: "editor", onSubmit: submit },
    name === undefined && h("input", {
      id: "knowledge-name",
      "aria-label": t("knowledgeName"),
      placeholder: t("knowledgeName"),
      value: path,
      onInput: (e: Event) => setPath(valueOf(e)),
    }),
    h(
      "div",
      { class: "panes" },
      h("textarea", {
        id: name === undefined ? "knowledge-new-text" : "knowledge-text",
        "aria-label": t("content"),
        rows: 14,
        value: text,
        onInput: (e: Event) => setText(valueOf(e)),
      }),
      h(Markdown, { text, cls: "preview markdown" }),
    ),
    h(
      "div",
      { class: "row" },
      h("button", { type: "submit" }, t("save")),
      onCancel && h("button", { type: "button", onClick: onCancel }, t("cancel")),
    ),
    problem && h("div", { class: "error", role: "alert" }, problem),
  );
}

/** The knowledge view. */
export function KnowledgeView() {
  const [entries, setEntries] = useState<KnowledgeEntry[] | undefined>();
  const [open, setOpen] = useState<KnowledgeEntry | undefined>();
  const [editing, setEditing] = useState(false);
  const [problem, setProblem] = useState("");
  const load = () =>
    void api<{ entries: KnowledgeEntry[] }>("/api/v1/knowledge").then(
      (r) => setEntries(r.entries),
      (e) => setProblem(messageOf(e)),
    );
  useEffect(load, []);
  const path = (name: string) =>
    `/api/v1/knowledge/${name.split("/").map(encodeURIComponent).join("/")}`;
  const show = (name: string) =>
    void api<{ entry: KnowledgeEntry }>(path(name)).then((r) => {
      setOpen(r.entry);
      setEditing(false);
    }, (e) => setProblem(messageOf(e)));
  const save = async (name: string, content: string) => {
    const { entry } = await send<{ entry: KnowledgeEntry }>("PUT", path(name), { content });
    setOpen(entry);
    setEditing(false);
    load();
  };
  const create = async (name: string, content: string) => {
    const { entry } = await send<{ entry: KnowledgeEntry }>("POST", "/api/v1/knowledge", {
      name,
      content,
    });
    setOpen(entry);
    load();
  };
  return h(
    "section",
    { class: "knowledge" },
    problem && h("div", { class: "error" }, problem),
    entries?.length === 0 && h("p", { class: "empty" }, t("knowledgeEmpty")),
    h(
      "div",
      { class: "knowledge-grid" },
      h(
        "nav",
        { class: "tree", "aria-label": t("knowledge") },
        tree(entries ?? []).map(([folder, list]) =>
          h(
            "details",
            { key: folder, open: true },
            h("summary", null, folder === "" ? "/" : folder),
            h(
              "ul",
              null,
              list.map((k) =>
                h(
                  "li",
                  { key: k.name },
                  h("button", {
                    class: `link${open?.name === k.name ? " on" : ""}`,
                    "aria-current": open?.name === k.name ? "true" : undefined,
                    onClick: () => show(k.name),
                  }, k.name.split("/").at(-1)),
                )
              ),
            ),
          )
        ),
      ),
      open && h(
        "article",
        { class: "entry card", "data-entry": open.name },
        h(
          "div",
          { class: "row" },
          h("h3", null, open.title ?? open.name),
          !editing &&
            h(
              "button",
              { class: "small", id: "knowledge-edit", onClick: () => setEditing(true) },
              t("edit"),
            ),
        ),
        editing
          ? h(Editor, {
            key: open.name,
            name: open.name,
            text: open.content ?? "",
            onSave: save,
            onCancel: () => setEditing(false),
          })
          : h(Markdown, { text: open.content ?? "", cls: "markdown" }),
      ),
    ),
    h(
      "details",
      { class: "card new-entry" },
      h("summary", null, t("create")),
      h(Editor, { text: "", onSave: create }),
    ),
  );
}
