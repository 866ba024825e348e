/** Plugins: the list with each one's tools and settings, enable, disable, reload and upload. */
import { h } from "preact";
import { useState } from "preact/hooks";
import { api, messageOf, send } from "./_api.ts";
import { t, tMaybe } from "./_i18n.ts";
import { useLoad } from "./_load.ts";
import { TerminalsView } from "./_terminals.ts";
import { ChangesView, CmdHistoryView, TimersView } from "./_work.ts";

interface Plugin {
  name: string;
  kind?: string;
  version?: string;
  state: string;
  error?: string;
  /** Crashes in the last 5 minutes. */
  crashes?: number;
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
            h("small", null, ` ${tMaybe(`kind_${p.kind}`, p.kind ?? "")} ${p.version ?? ""}`),
            h(PluginDetails, { p }),
          ),
          h(
            "td",
            null,
            h("span", { class: `tag state-${p.state}` }, tMaybe(`state_${p.state}`, p.state)),
            (p.crashes ?? 0) > 0 &&
              h("div", { class: "error" }, t("crashesRecently", { n: p.crashes ?? 0 })),
            p.error && h("div", { class: "error" }, p.error),
          ),
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
            // A built-in is part of the program: it has no process to swap.
            p.kind !== "builtin" && h(
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
