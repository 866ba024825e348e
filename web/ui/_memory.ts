/** The memory view: the knowledge graph drawn with cytoscape, documents, the context window. */
import { h } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { loadGraphCanvas } from "./_lazy.ts";
import { api, messageOf, send } from "./_api.ts";
import { t } from "./_i18n.ts";
import { SpaceLine } from "./_space.ts";

interface Entity {
  id: number;
  name: string;
  type: string;
  mentions: number;
}

interface Relation {
  id: number;
  source: string;
  target: string;
  type: string;
  status: string;
  confidence: number;
  validFrom: number;
  validTo?: number;
  sentence?: string;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function FactRow({ r, onChange }: { r: Relation; onChange: () => void }) {
  const [editing, setEditing] = useState(false);
  const [type, setType] = useState(r.type);
  const [target, setTarget] = useState(r.target);
  const [error, setError] = useState("");
  const act = (p: Promise<unknown>) =>
    p.then(() => {
      setEditing(false);
      setError("");
      onChange();
    }, (e) => setError(messageOf(e)));
  const closed = r.validTo !== undefined || r.status === "deleted";
  return h(
    "li",
    { class: closed ? "fact closed" : "fact", "data-relation": r.id },
    editing
      ? h(
        "form",
        {
          class: "inline",
          onSubmit: (e: Event) => {
            e.preventDefault();
            act(send("PATCH", `/api/v1/memory/relations/${r.id}`, { type, target }));
          },
        },
        h("span", null, r.source, " "),
        h("input", {
          value: type,
          "aria-label": t("predicate"),
          onInput: (e: Event) => setType((e.target as HTMLInputElement).value),
        }),
        h("input", {
          value: target,
          "aria-label": t("target"),
          onInput: (e: Event) => setTarget((e.target as HTMLInputElement).value),
        }),
        h("button", { type: "submit" }, t("save")),
        h("button", { type: "button", onClick: () => setEditing(false) }, t("cancel")),
      )
      : h(
        "div",
        null,
        h("b", null, r.source),
        ` —${r.type}→ `,
        h("b", null, r.target),
        h(
          "small",
          null,
          ` (${day(r.validFrom)}${r.validTo ? " – " + day(r.validTo) : ""}${
            r.status === "deleted" ? ", deleted" : ""
          })`,
        ),
        !closed && h("button", { class: "small", onClick: () => setEditing(true) }, t("edit")),
        !closed &&
          h("button", {
            class: "small danger",
            onClick: () => act(send("DELETE", `/api/v1/memory/relations/${r.id}`)),
          }, t("delete")),
      ),
    r.sentence && h("blockquote", null, r.sentence),
    error && h("div", { class: "error" }, error),
  );
}

function EntityPanel({ name, onChange }: { name: string; onChange: () => void }) {
  const [data, setData] = useState<{ entity: Entity; relations: Relation[] } | undefined>();
  const [error, setError] = useState("");
  const load = () =>
    api<{ entity: Entity; relations: Relation[] }>(
      `/api/v1/memory/entities/${encodeURIComponent(name)}`,
    )
      .then(setData, (e) => setError(messageOf(e)));
  useEffect(() => void load(), [name]);
  if (error) return h("div", { class: "error" }, error);
  if (!data) return h("div", null, "…");
  const changed = () => {
    void load();
    onChange();
  };
  return h(
    "div",
    { class: "entity", id: "entity" },
    h("h3", null, data.entity.name, data.entity.type && h("small", null, ` (${data.entity.type})`)),
    h("h4", null, t("sentences")),
    h("ul", null, data.relations.map((r) => h(FactRow, { key: r.id, r, onChange: changed }))),
    h("button", {
      class: "danger",
      onClick: () =>
        send("DELETE", `/api/v1/memory/entities/${encodeURIComponent(name)}`).then(
          changed,
          (e) => setError(messageOf(e)),
        ),
    }, t("retire")),
  );
}

/** The drawing's colours from the page's theme, so it reads in dark mode too. */
function themeColours() {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return { node: v("--accent"), text: v("--fg"), line: v("--muted"), picked: "#f59e0b" };
}

function GraphTab() {
  const box = useRef<HTMLDivElement>(null);
  const [q, setQ] = useState("");
  const [graph, setGraph] = useState<{ entities: Entity[]; relations: Relation[] }>({
    entities: [],
    relations: [],
  });
  const [picked, setPicked] = useState<string | undefined>();
  const [error, setError] = useState("");
  const [searched, setSearched] = useState<string | undefined>();
  const load = (query = q) =>
    api<{ entities: Entity[]; relations: Relation[] }>(
      `/api/v1/memory/graph?q=${encodeURIComponent(query)}`,
    )
      .then((g) => {
        setGraph(g);
        setSearched(query);
        setError("");
      }, (e) => setError(messageOf(e)));
  const empty = searched !== undefined && graph.entities.length === 0;
  useEffect(() => void load(""), []);
  useEffect(() => {
    let drawing: { destroy(): void } | undefined;
    let gone = false;
    void loadGraphCanvas().then(({ drawGraph }) => {
      if (gone || !box.current) return;
      drawing = drawGraph(box.current, {
        nodes: graph.entities,
        edges: graph.relations.map((r) => ({
          id: r.id,
          source: r.source,
          target: r.target,
          label: r.type,
          closed: r.validTo !== undefined,
        })),
      }, { colours: themeColours(), onPick: setPicked });
    }, (e) => setError(messageOf(e)));
    return () => {
      gone = true;
      drawing?.destroy();
    };
  }, [graph]);
  return h(
    "div",
    { class: "graph-tab" },
    h(
      "form",
      { class: "row", onSubmit: (e: Event) => (e.preventDefault(), void load()) },
      h("input", {
        id: "graph-q",
        value: q,
        placeholder: t("search"),
        onInput: (e: Event) => setQ((e.target as HTMLInputElement).value),
      }),
      h("button", { type: "submit" }, t("search")),
    ),
    error && h("div", { class: "error" }, error),
    empty && h(
      "div",
      { class: "empty graph-empty", id: "graph-empty" },
      searched === ""
        ? [h("h3", { key: "h" }, t("graphEmptyTitle")), h("p", { key: "p" }, t("graphEmpty"))]
        : h("p", null, t("graphNoMatch")),
    ),
    h("div", {
      id: "graph",
      ref: box,
      class: "graph",
      hidden: empty,
      "data-nodes": graph.entities.map((e) => e.name).join("|"),
      "data-edges": graph.relations.map((r) => `${r.source}|${r.type}|${r.target}`).join(";"),
    }),
    h(
      "ul",
      { class: "node-list" },
      graph.entities.map((e) =>
        h(
          "li",
          { key: e.name },
          h("button", { class: "link", onClick: () => setPicked(e.name) }, e.name),
        )
      ),
    ),
    picked
      ? h(EntityPanel, { key: picked, name: picked, onChange: () => void load() })
      : h("p", { class: "hint" }, t("clickNode")),
  );
}

interface Doc {
  id: string;
  summary: string;
  source?: string;
  createdAt: number;
  score?: number;
}

/** A one-line query form: an input bound to `q` and a button that runs `submit`. */
function queryForm(
  q: string,
  setQ: (value: string) => void,
  submit: () => void,
  placeholder: string,
  button: string,
) {
  return h(
    "form",
    { class: "row", onSubmit: (e: Event) => (e.preventDefault(), void submit()) },
    h("input", {
      value: q,
      placeholder,
      onInput: (e: Event) => setQ((e.target as HTMLInputElement).value),
    }),
    h("button", { type: "submit" }, button),
  );
}

function DocumentsTab() {
  const [q, setQ] = useState("");
  const [docs, setDocs] = useState<Doc[] | undefined>();
  const [error, setError] = useState("");
  const load = () =>
    api<{ documents: Doc[] }>(`/api/v1/memory/documents?q=${encodeURIComponent(q)}`)
      .then((r) => setDocs(r.documents), (e) => setError(messageOf(e)));
  useEffect(() => void load(), []);
  return h(
    "div",
    null,
    queryForm(q, setQ, load, t("search"), t("search")),
    error && h("div", { class: "error" }, error),
    docs?.length === 0 && h("p", null, t("noData")),
    h(
      "ul",
      { class: "docs" },
      (docs ?? []).map((d) =>
        h(
          "li",
          { key: d.id },
          h(
            "small",
            null,
            `${day(d.createdAt)} · ${d.source ?? ""}${
              d.score !== undefined ? ` · ${d.score.toFixed(3)}` : ""
            }`,
          ),
          h("div", null, d.summary),
        )
      ),
    ),
  );
}

interface ContextItem {
  id: string;
  role: string;
  text: string;
  timestamp: number;
  score?: number;
}

function ContextTab() {
  const [q, setQ] = useState("");
  const [data, setData] = useState<{ query: string; events: ContextItem[] } | undefined>();
  const [error, setError] = useState("");
  const load = () =>
    api<{ query: string; events: ContextItem[] }>(
      `/api/v1/memory/context?q=${encodeURIComponent(q)}`,
    )
      .then(setData, (e) => setError(messageOf(e)));
  useEffect(() => void load(), []);
  return h(
    "div",
    null,
    queryForm(q, setQ, load, t("query"), t("score")),
    error && h("div", { class: "error" }, error),
    data && h("p", { class: "hint" }, `${t("query")}: ${data.query}`),
    h(
      "ul",
      { class: "context" },
      (data?.events ?? []).map((e) =>
        h(
          "li",
          { key: e.id, class: e.role },
          h("span", {
            class: "bar",
            style: { width: `${Math.round(Math.max(0, e.score ?? 0) * 100)}%` },
          }),
          h("small", null, `${e.role} · ${e.score !== undefined ? e.score.toFixed(3) : "–"}`),
          h("div", null, e.text),
        )
      ),
    ),
  );
}

/** The memory view with its three tabs. */
export function MemoryView() {
  const [tab, setTab] = useState<"graph" | "documents" | "context">("graph");
  return h(
    "section",
    { class: "memory" },
    h(SpaceLine, null),
    h(
      "nav",
      { class: "subtabs" },
      (["graph", "documents", "context"] as const).map((k) =>
        h("button", { key: k, class: tab === k ? "on" : "", onClick: () => setTab(k) }, t(k))
      ),
    ),
    tab === "graph"
      ? h(GraphTab, null)
      : tab === "documents"
      ? h(DocumentsTab, null)
      : h(ContextTab, null),
  );
}
