/**
 * The graph tab: the knowledge graph drawn with cytoscape (lazy), a search, filters by entity
 * type and by time (true on a day, changed since a day), and the picked entity's facts.
 */
import { h } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { loadGraphCanvas } from "./_lazy.ts";
import { api, messageOf, send } from "./_api.ts";
import { num, t, tMaybe } from "./_i18n.ts";
import { value } from "./_load.ts";
import { FactRow, type Relation } from "./_memory_fact.ts";

interface Entity {
  id: number;
  name: string;
  type: string;
  mentions: number;
}

interface Graph {
  entities: Entity[];
  relations: Relation[];
  types: { type: string; entities: number }[];
}

/** What the graph shows: a search, one entity type or all, and a moment in time. */
interface Filter {
  q: string;
  type: string;
  when: "now" | "at" | "since";
  /** The day of `when` (YYYY-MM-DD, the owner's own calendar). */
  day: string;
}

/** The query string of `filter`: a day is the end (true on) or start (changed since) of it, locally. */
export function graphQuery(filter: Filter): string {
  const query = new URLSearchParams({ q: filter.q.trim() });
  if (filter.type !== "") query.set("types", filter.type);
  if (filter.when !== "now" && filter.day !== "") {
    const [y, m, d] = filter.day.split("-").map(Number);
    const start = new Date(y!, m! - 1, d!).getTime();
    query.set(filter.when, String(filter.when === "at" ? start + 86_399_999 : start));
  }
  return query.toString();
}

function EntityPanel({ name, onChange }: { name: string; onChange: () => void }) {
  const [data, setData] = useState<{ entity: Entity; relations: Relation[] } | undefined>();
  const [error, setError] = useState("");
  const load = () =>
    api<{ entity: Entity; relations: Relation[] }>(
      `/api/v1/memory/entities/${encodeURIComponent(name)}`,
    ).then(setData, (e) => setError(messageOf(e)));
  useEffect(() => void load(), [name]);
  if (error) return h("div", { class: "error" }, error);
  if (!data) return h("div", null, t("loading"));
  const changed = () => {
    void load();
    onChange();
  };
  const { entity } = data;
  return h(
    "div",
    { class: "entity", id: "entity" },
    h("h3", null, entity.name, entity.type && h("small", null, ` (${typeName(entity.type)})`)),
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

/** An entity type in the page's words where the catalogue has it ("person" → "人物"). */
function typeName(type: string): string {
  return tMaybe(`etype_${type}`, type);
}

/** The drawing's colours from the page's theme, so it reads in dark mode too. */
function themeColours() {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return { node: v("--accent"), text: v("--fg"), line: v("--muted"), picked: "#f59e0b" };
}

function FilterForm(
  { filter, types, apply }: {
    filter: Filter;
    types: Graph["types"];
    apply: (next: Filter) => void;
  },
) {
  const [q, setQ] = useState(filter.q);
  const set = (patch: Partial<Filter>) => apply({ ...filter, q, ...patch });
  return h(
    "form",
    { class: "row filters", role: "search", onSubmit: (e: Event) => (e.preventDefault(), set({})) },
    h("input", {
      id: "graph-q",
      type: "search",
      value: q,
      placeholder: t("search"),
      "aria-label": t("searchGraph"),
      onInput: (e: Event) => setQ(value(e)),
    }),
    h(
      "select",
      {
        id: "graph-type",
        "aria-label": t("entityType"),
        value: filter.type,
        onChange: (e: Event) => set({ type: value(e) }),
      },
      h("option", { value: "" }, t("allTypes")),
      types.map((x) =>
        h("option", { key: x.type, value: x.type }, `${typeName(x.type)} (${num(x.entities)})`)
      ),
    ),
    h(
      "select",
      {
        id: "graph-when",
        "aria-label": t("whenFilter"),
        value: filter.when,
        onChange: (e: Event) => set({ when: value(e) as Filter["when"] }),
      },
      h("option", { value: "now" }, t("whenNow")),
      h("option", { value: "at" }, t("whenAt")),
      h("option", { value: "since" }, t("whenSince")),
    ),
    filter.when !== "now" && h("input", {
      id: "graph-day",
      type: "date",
      value: filter.day,
      "aria-label": t("whenDay"),
      onChange: (e: Event) => set({ day: value(e) }),
    }),
    h("button", { type: "submit" }, t("search")),
  );
}

const today = () => new Date().toLocaleDateString("sv"); // YYYY-MM-DD in the local calendar

/** The graph tab. */
export function GraphTab() {
  const box = useRef<HTMLDivElement>(null);
  const [filter, setFilter] = useState<Filter>({ q: "", type: "", when: "now", day: today() });
  const [graph, setGraph] = useState<Graph>({ entities: [], relations: [], types: [] });
  const [picked, setPicked] = useState<string | undefined>();
  const [error, setError] = useState("");
  const [shown, setShown] = useState<Filter | undefined>();
  const load = (next = filter) =>
    api<Graph>(`/api/v1/memory/graph?${graphQuery(next)}`).then((g) => {
      setGraph(g);
      setShown(next);
      setError("");
    }, (e) => setError(messageOf(e)));
  const apply = (next: Filter) => {
    setFilter(next);
    void load(next);
  };
  useEffect(() => void load(), []);
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
          closed: r.validTo !== undefined || r.status === "deleted",
        })),
      }, { colours: themeColours(), onPick: setPicked });
    }, (e) => setError(messageOf(e)));
    return () => {
      gone = true;
      drawing?.destroy();
    };
  }, [graph]);
  const empty = shown !== undefined && graph.entities.length === 0;
  const unfiltered = shown?.q.trim() === "" && shown.type === "" && shown.when === "now";
  return h(
    "div",
    { class: "graph-tab" },
    h(FilterForm, { filter, types: graph.types, apply }),
    error && h("div", { class: "error" }, error),
    empty && h(
      "div",
      { class: "empty graph-empty", id: "graph-empty" },
      unfiltered
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
      { class: "node-list", "aria-label": t("entities") },
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
