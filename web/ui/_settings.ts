/**
 * Settings for people: grouped by meaning (LLM sources, the assistant, memory, plugins, the
 * web page), each with a label, a line of help and its control; every raw key under Advanced.
 * The group is in the address (`#settings/memory`), so a reload or a link keeps it.
 */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, messageOf } from "./_api.ts";
import { t, type TextKey } from "./_i18n.ts";
import { SettingField } from "./_setting_field.ts";
import { type Group, groupOf, GROUPS, ownerOf, type Setting, textOf } from "./_settings_meta.ts";

function groupFromHash(): Group {
  const name = location.hash.split("/")[1] as Group | undefined;
  return name && GROUPS.includes(name) ? name : "llm";
}

function matches(s: Setting, filter: string): boolean {
  if (filter === "") return true;
  const { label, help } = textOf(s);
  return [s.key, label, help].some((x) => x.toLowerCase().includes(filter));
}

/** Settings of one owner (an LLM source, a plugin, an MCP server) under its name. */
function Owned(
  { list, onSaved, prefix }: {
    list: Setting[];
    onSaved: (s: Setting) => void;
    prefix: TextKey;
  },
) {
  const owners = new Map<string, Setting[]>();
  const general: Setting[] = [];
  for (const s of list) {
    const owner = ownerOf(s.key);
    if (owner === undefined) general.push(s);
    else owners.set(owner, [...(owners.get(owner) ?? []), s]);
  }
  return [
    general.map((s) => h(SettingField, { key: s.key, s, onSaved })),
    [...owners].map(([owner, settings]) =>
      h(
        "fieldset",
        { key: owner, class: "card owner", "data-owner": owner },
        h("legend", null, t(prefix, { name: owner })),
        settings.map((s) => h(SettingField, { key: s.key, s, onSaved })),
      )
    ),
  ];
}

function GroupBody(
  { group, list, onSaved }: { group: Group; list: Setting[]; onSaved: (s: Setting) => void },
) {
  if (list.length === 0) return h("p", { class: "empty" }, t("noMatches"));
  if (group === "advanced") {
    return list.map((s) => h(SettingField, { key: s.key, s, onSaved, showKey: true }));
  }
  if (group === "llm") {
    return [
      h(
        "p",
        { class: "row", key: "add" },
        h("a", { class: "button primary", href: "#setup", id: "add-source" }, t("addSource")),
      ),
      h(Owned, { list, onSaved, prefix: "sourceNamed" }),
    ];
  }
  if (group === "plugins") return h(Owned, { list, onSaved, prefix: "pluginNamed" });
  return list.map((s) => h(SettingField, { key: s.key, s, onSaved }));
}

/** The settings view. */
export function SettingsView() {
  const [settings, setSettings] = useState<Setting[] | undefined>();
  const [error, setError] = useState("");
  const [filter, setFilter] = useState("");
  const [group, setGroup] = useState<Group>(groupFromHash());
  useEffect(() => {
    void api<{ settings: Setting[] }>("/api/v1/settings").then(
      (r) => setSettings(r.settings),
      (e) => setError(messageOf(e)),
    );
    const onHash = () => setGroup(groupFromHash());
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  const onSaved = (saved: Setting) =>
    setSettings((old) => old?.map((s) => s.key === saved.key ? saved : s));
  const needle = filter.trim().toLowerCase();
  // A search looks through every group.
  const shown = (settings ?? []).filter((s) =>
    needle !== "" ? matches(s, needle) : group === "advanced" || groupOf(s.key) === group
  );
  return h(
    "section",
    { class: "settings" },
    h("h2", { class: "sr-only" }, t("settings")),
    h(
      "div",
      { class: "row" },
      h("input", {
        id: "settings-filter",
        type: "search",
        "aria-label": t("filterSettings"),
        placeholder: t("filterSettings"),
        value: filter,
        onInput: (e: Event) => setFilter((e.target as HTMLInputElement).value),
      }),
    ),
    h(
      "nav",
      { class: "subtabs", "aria-label": t("settingGroups") },
      GROUPS.map((g) =>
        h("a", {
          key: g,
          href: `#settings/${g}`,
          id: `group-${g}`,
          class: `button${g === group ? " on" : ""}`,
          "aria-current": g === group ? "page" : undefined,
        }, t(`group_${g}`))
      ),
    ),
    error && h("div", { class: "error" }, error),
    settings === undefined && !error ? h("p", { class: "hint" }, t("loading")) : h(
      "div",
      { class: "settings-list", "data-group": needle === "" ? group : "search" },
      h(GroupBody, { group: needle === "" ? group : "advanced", list: shown, onSaved }),
    ),
  );
}
