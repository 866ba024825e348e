/** Settings: every key of the ConfigRegistry by group, each edited and saved in place. */
import { h } from "preact";
import { useState } from "preact/hooks";
import { messageOf, send } from "./_api.ts";
import { t } from "./_i18n.ts";
import { useLoad, value } from "./_load.ts";

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
