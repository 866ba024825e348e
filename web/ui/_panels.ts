/** Knowledge base, settings, plugins, LLM sources and residents. */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, messageOf, send } from "./_api.ts";
import { Markdown } from "./_markdown.ts";
import { t } from "./_i18n.ts";
import { TerminalsView } from "./_terminals.ts";
import { ChangesView, CmdHistoryView, TimersView } from "./_work.ts";

/** Load `path` once; returns [data, error, reload]. */
function useLoad<T>(path: string): [T | undefined, string, () => void] {
  const [data, setData] = useState<T | undefined>();
  const [error, setError] = useState("");
  const load = () =>
    void api<T>(path).then((d) => {
      setData(d);
      setError("");
    }, (e) =>
      setError(
        e instanceof ApiError && e.status === 501
          ? `${t("notAvailable")}: ${e.message}`
          : messageOf(e),
      ));
  useEffect(load, [path]);
  return [data, error, load];
}

const value = (e: Event) => (e.target as HTMLInputElement).value;

interface KnowledgeEntry {
  name: string;
  title?: string;
  content?: string;
}

/** Knowledge base: list, view, create. */
export function KnowledgeView() {
  const [data, error, reload] = useLoad<{ entries: KnowledgeEntry[] }>("/api/v1/knowledge");
  const [open, setOpen] = useState<KnowledgeEntry | undefined>();
  const [name, setName] = useState("");
  const [content, setContent] = useState("");
  const [problem, setProblem] = useState("");
  const view = (n: string) =>
    api<{ entry: KnowledgeEntry }>(`/api/v1/knowledge/${encodeURIComponent(n)}`).then(
      (r) => setOpen(r.entry),
      (e) => setProblem(messageOf(e)),
    );
  const create = (e: Event) => {
    e.preventDefault();
    send("POST", "/api/v1/knowledge", { name, content }).then(() => {
      setName("");
      setContent("");
      setProblem("");
      reload();
    }, (err) => setProblem(messageOf(err)));
  };
  return h(
    "section",
    { class: "knowledge" },
    error && h("div", { class: "error" }, error),
    h(
      "ul",
      { class: "entries" },
      (data?.entries ?? []).map((k) =>
        h(
          "li",
          { key: k.name },
          h("button", { class: "link", onClick: () => void view(k.name) }, k.title ?? k.name),
        )
      ),
    ),
    open &&
      h(
        "article",
        { class: "entry" },
        h("h3", null, open.title ?? open.name),
        h(Markdown, { text: open.content ?? "", cls: "markdown" }),
      ),
    h(
      "form",
      { class: "stack", onSubmit: create },
      h("h3", null, t("create")),
      h("input", { placeholder: t("name"), value: name, onInput: (e: Event) => setName(value(e)) }),
      h("textarea", {
        rows: 6,
        placeholder: t("content"),
        value: content,
        onInput: (e: Event) => setContent(value(e)),
      }),
      h("button", { type: "submit" }, t("create")),
      problem && h("div", { class: "error" }, problem),
    ),
  );
}

interface Setting {
  key: string;
  value: unknown;
  default: unknown;
  description: string;
  secret: boolean;
  restart: boolean;
  isDefault: boolean;
  source: string;
  type: "boolean" | "number" | "string" | "json";
  problem?: string;
}

function textOf(s: Setting): string {
  return s.type === "string" ? String(s.value ?? "") : JSON.stringify(s.value);
}

function SettingRow({ s, onSaved }: { s: Setting; onSaved: (s: Setting) => void }) {
  const [text, setText] = useState(textOf(s));
  const [checked, setChecked] = useState(s.value === true);
  const [note, setNote] = useState<{ ok: boolean; text: string } | undefined>();
  const save = (body: unknown) =>
    send<{ setting: Setting }>("PUT", `/api/v1/settings/${encodeURIComponent(s.key)}`, body).then(
      (r) => {
        setNote({ ok: true, text: t("saved") });
        onSaved(r.setting);
      },
      (e) => setNote({ ok: false, text: messageOf(e) }),
    );
  const id = "s-" + s.key.replaceAll(".", "-");
  return h(
    "div",
    { class: "setting", "data-key": s.key },
    h(
      "label",
      { for: id },
      h("code", null, s.key),
      h(
        "small",
        null,
        ` ${s.type}${s.restart ? " · restart" : ""}${
          s.source !== "default" ? " · " + s.source : ""
        }`,
      ),
    ),
    h("div", { class: "hint" }, s.description),
    h(
      "form",
      {
        class: "row",
        onSubmit: (e: Event) => {
          e.preventDefault();
          void save(s.type === "boolean" ? { value: checked } : { text });
        },
      },
      s.type === "boolean"
        ? h("input", {
          id,
          type: "checkbox",
          checked,
          onChange: (e: Event) => setChecked((e.target as HTMLInputElement).checked),
        })
        : h("input", {
          id,
          type: s.secret ? "password" : "text",
          inputmode: s.type === "number" ? "decimal" : undefined,
          value: text,
          onInput: (e: Event) => setText(value(e)),
        }),
      h("button", { type: "submit" }, t("save")),
      !s.isDefault &&
        h("button", {
          type: "button",
          onClick: () =>
            void save({ unset: true }).then(() => setText(textOf({ ...s, value: s.default }))),
        }, t("reset")),
    ),
    s.problem && h("div", { class: "error" }, s.problem),
    note && h("div", { class: note.ok ? "ok" : "error validation" }, note.text),
  );
}

/** Settings by namespace. */
export function SettingsView() {
  const [data, error] = useLoad<{ settings: Setting[] }>("/api/v1/settings");
  const [filter, setFilter] = useState("");
  const [, bump] = useState(0);
  const groups = new Map<string, Setting[]>();
  for (const s of data?.settings ?? []) {
    if (filter !== "" && !s.key.includes(filter)) continue;
    const ns = s.key.split(".").slice(0, 2).join(".");
    groups.set(ns, [...(groups.get(ns) ?? []), s]);
  }
  return h(
    "section",
    { class: "settings" },
    h("input", {
      id: "settings-filter",
      placeholder: t("filter"),
      value: filter,
      onInput: (e: Event) => setFilter(value(e)),
    }),
    error && h("div", { class: "error" }, error),
    [...groups].map(([ns, list]) =>
      h(
        "details",
        { key: ns, open: filter !== "" || groups.size <= 3, class: "ns", "data-ns": ns },
        h("summary", null, ns, h("small", null, ` (${list.length})`)),
        list.map((s) =>
          h(SettingRow, {
            key: s.key,
            s,
            onSaved: (n) => {
              Object.assign(s, n);
              bump((x) => x + 1);
            },
          })
        ),
      )
    ),
  );
}

interface Plugin {
  name: string;
  kind?: string;
  version?: string;
  state: string;
  error?: string;
  tools?: string[];
  settings?: { key: string; value: unknown }[];
}

/** A plugin's tools and settings, folded under its name. */
function PluginDetails({ p }: { p: Plugin }) {
  const tools = p.tools ?? [];
  const settings = p.settings ?? [];
  if (tools.length === 0 && settings.length === 0) return null;
  const prefix = `plugin.${p.name}.`;
  return h(
    "details",
    { class: "plugin-details", "data-plugin": p.name },
    h(
      "summary",
      null,
      `${t("pluginTools")} ${tools.length}` +
        (p.settings !== undefined ? ` · ${t("settings")} ${settings.length}` : ""),
    ),
    tools.length > 0 &&
      h("div", { class: "tools" }, tools.map((name) => h("code", { key: name }, name, " "))),
    settings.length > 0 &&
      h(
        "ul",
        { class: "plugin-settings" },
        settings.map((s) =>
          h(
            "li",
            { key: s.key },
            h("code", null, s.key.replace(prefix, "")),
            ` = ${JSON.stringify(s.value)}`,
          )
        ),
      ),
  );
}

/** Plugins: list, enable/disable, reload, upload a .hmap. */
export function PluginsView() {
  const [data, error, reload] = useLoad<{ plugins: Plugin[] }>("/api/v1/plugins");
  const [problem, setProblem] = useState("");
  const act = (p: Promise<unknown>) =>
    p.then(() => (setProblem(""), reload()), (e) => setProblem(messageOf(e)));
  const running = (name: string) =>
    (data?.plugins ?? []).some((p) => p.name === name && p.state === "running");
  const upload = async (e: Event) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (!file) return;
    const body = await file.arrayBuffer();
    const post = (query: string) =>
      api<{ review: { sha256: string; lines: string[] } }>(`/api/v1/plugins/upload${query}`, {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
        body,
      });
    // The server installs only what the owner saw: its permission review, then a confirm.
    await act(
      post("").then(({ review }) => {
        if (!confirm(`${review.lines.join("\n")}\n\n${t("installConfirm")}`)) return;
        return post(`?confirm=${review.sha256}`);
      }),
    );
  };
  return h(
    "section",
    { class: "plugins" },
    error && h("div", { class: "error" }, error),
    problem && h("div", { class: "error" }, problem),
    h(
      "table",
      null,
      h("tr", null, h("th", null, t("name")), h("th", null, t("state")), h("th", null, "")),
      (data?.plugins ?? []).map((p) =>
        h(
          "tr",
          { key: p.name },
          h(
            "td",
            null,
            p.name,
            h("small", null, ` ${p.kind ?? ""} ${p.version ?? ""}`),
            h(PluginDetails, { p }),
          ),
          h("td", null, p.state, p.error && h("div", { class: "error" }, p.error)),
          h(
            "td",
            { class: "actions" },
            p.state === "disabled"
              ? h("button", {
                onClick: () => act(send("POST", `/api/v1/plugins/${p.name}/enable`)),
              }, t("enable"))
              : h("button", {
                onClick: () => act(send("POST", `/api/v1/plugins/${p.name}/disable`)),
              }, t("disable")),
            h(
              "button",
              { onClick: () => act(send("POST", `/api/v1/plugins/${p.name}/reload`)) },
              t("reload"),
            ),
          ),
        )
      ),
    ),
    running("agentcli") && h(TerminalsView, null),
    running("changes") && h(ChangesView, null),
    running("cmd") && h(CmdHistoryView, null),
    running("timer") && h(TimersView, null),
    h(
      "label",
      { class: "upload" },
      t("upload"),
      " ",
      h("input", { type: "file", accept: ".hmap,.zip", onChange: upload }),
    ),
  );
}

interface Source {
  name: string;
  adapter: string;
  model: string;
  state: string;
  lastError?: string;
  calls: number;
  failures: number;
}

interface Usage {
  source: string;
  day: string;
  promptTokens: number;
  completionTokens: number;
  calls: number;
}

/** LLM sources with health and token usage. */
export function LlmView() {
  const [data, error] = useLoad<{ sources: Source[]; usage: Usage[] }>("/api/v1/llm");
  return h(
    "section",
    { class: "llm" },
    error && h("div", { class: "error" }, error),
    data?.sources.length === 0 && h("p", null, t("noData")),
    h(
      "table",
      null,
      h(
        "tr",
        null,
        h("th", null, t("name")),
        h("th", null, t("state")),
        h("th", null, t("calls")),
        h("th", null, t("failures")),
      ),
      (data?.sources ?? []).map((s) =>
        h(
          "tr",
          { key: s.name, class: s.state },
          h("td", null, s.name, h("small", null, ` ${s.adapter} · ${s.model}`)),
          h("td", null, s.state, s.lastError && h("div", { class: "error" }, s.lastError)),
          h("td", null, s.calls),
          h("td", null, s.failures),
        )
      ),
    ),
    h("h3", null, t("usage")),
    h(
      "table",
      null,
      h(
        "tr",
        null,
        h("th", null, t("day")),
        h("th", null, t("name")),
        h("th", null, t("prompt")),
        h("th", null, t("completion")),
        h("th", null, t("calls")),
      ),
      (data?.usage ?? []).map((u) =>
        h(
          "tr",
          { key: u.day + u.source },
          h("td", null, u.day),
          h("td", null, u.source),
          h("td", null, u.promptTokens),
          h("td", null, u.completionTokens),
          h("td", null, u.calls),
        )
      ),
    ),
  );
}

interface Resident {
  name: string;
  state: string;
  openTasks: number;
  contextEvents: number;
  createdAt: string;
}

/** Resident agents. */
export function AgentsView() {
  const [data, error, reload] = useLoad<{ residents: Resident[] }>("/api/v1/agents");
  return h(
    "section",
    { class: "agents" },
    error && h("div", { class: "error" }, error),
    h("button", { onClick: reload }, t("refresh")),
    data?.residents.length === 0 && h("p", null, t("noData")),
    h(
      "table",
      null,
      (data?.residents ?? []).map((r) =>
        h(
          "tr",
          { key: r.name },
          h("td", null, r.name),
          h("td", null, r.state),
          h("td", null, `${r.openTasks} tasks`),
          h("td", null, `${r.contextEvents} events`),
        )
      ),
    ),
  );
}
