/**
 * Plugins: each with what it is for, its tools, what it may do (its manifest's permissions) and
 * its settings; its state, crashes and restarts; enable, disable, reload and uninstall where
 * they apply (a built-in is part of the program: it is never removed); install with review.
 */
import { h } from "preact";
import { useState } from "preact/hooks";
import { messageOf, send } from "./_api.ts";
import { stampOf, t, tMaybe } from "./_i18n.ts";
import { useLoad } from "./_load.ts";
import { PermissionList, type Permissions, PluginInstall } from "./_plugin_install.ts";
import { TerminalsView } from "./_terminals.ts";
import { ChangesView, CmdHistoryView, TimersView } from "./_work.ts";

interface Plugin {
  name: string;
  kind?: string;
  version?: string;
  state: string;
  error?: string;
  description?: string;
  permissions?: Permissions;
  /** A built-in the owner may turn off. */
  optional?: boolean;
  /** Crashes in the last 5 minutes. */
  crashes?: number;
  /** Restarts after a crash since HomeAgent started. */
  restarts?: number;
  lastCrash?: { at: number; reason: string };
  tools?: string[];
  settings?: { key: string; value: unknown }[];
}

/** What a plugin is for: a built-in's in the page's words, an installed one's from its manifest. */
function about(p: Plugin): string {
  return p.kind === "builtin"
    ? tMaybe(`about_${p.name}`, p.description ?? "")
    : p.description ?? "";
}

/** A plugin's tools, permissions and settings, folded under its name. */
function PluginDetails({ p }: { p: Plugin }) {
  const tools = p.tools ?? [];
  const settings = p.settings ?? [];
  const prefix = `plugin.${p.name}.`;
  const parts = [
    `${t("pluginTools")} ${tools.length}`,
    p.permissions && t("permissions"),
    p.settings !== undefined && `${t("settings")} ${settings.length}`,
  ].filter(Boolean);
  return h(
    "details",
    { class: "plugin-details", "data-plugin": p.name },
    h("summary", null, parts.join(" · ")),
    tools.length > 0 &&
      h("div", { class: "tools" }, tools.map((name) => h("code", { key: name }, name, " "))),
    p.kind === "builtin"
      ? h("p", { class: "hint" }, t("builtinRuns"))
      : p.permissions && h(PermissionList, { p: p.permissions, kind: p.kind }),
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

/** State, recent crashes, restarts and the last crash in words. */
function PluginHealth({ p }: { p: Plugin }) {
  return h(
    "td",
    { class: "health" },
    h("span", { class: `tag state-${p.state}` }, tMaybe(`state_${p.state}`, p.state)),
    (p.crashes ?? 0) > 0 &&
      h("div", { class: "error" }, t("crashesRecently", { n: p.crashes ?? 0 })),
    (p.restarts ?? 0) > 0 &&
      h("div", null, h("small", null, t("restartedTimes", { n: p.restarts ?? 0 }))),
    p.lastCrash &&
      h(
        "div",
        null,
        h(
          "small",
          null,
          t("lastCrash", { at: stampOf(p.lastCrash.at), reason: p.lastCrash.reason }),
        ),
      ),
    p.error && p.error !== p.lastCrash?.reason && h("div", { class: "error" }, p.error),
  );
}

function PluginActions({ p, act }: { p: Plugin; act: (path: string, method?: string) => void }) {
  const path = `/api/v1/plugins/${p.name}`;
  const builtin = p.kind === "builtin";
  const toggles = !builtin || p.optional || p.state === "disabled";
  return h(
    "td",
    { class: "actions" },
    toggles &&
      (p.state === "disabled"
        ? h("button", { onClick: () => act(`${path}/enable`) }, t("enable"))
        : h("button", { onClick: () => act(`${path}/disable`) }, t("disable"))),
    // A built-in is part of the program: no process to swap, nothing to remove.
    !builtin && h("button", { onClick: () => act(`${path}/reload`) }, t("reload")),
    !builtin && h("button", {
      class: "danger",
      onClick: () => confirm(t("uninstallConfirm", { name: p.name })) && act(path, "DELETE"),
    }, t("uninstall")),
  );
}

/** Plugins: the list, the work views of those running, and install. */
export function PluginsView() {
  const [data, error, reload] = useLoad<{ plugins: Plugin[] }>("/api/v1/plugins");
  const [problem, setProblem] = useState("");
  const act = (path: string, method = "POST") =>
    void send(method, path).then(() => (setProblem(""), reload()), (e) => setProblem(messageOf(e)));
  const running = (name: string) =>
    (data?.plugins ?? []).some((p) => p.name === name && p.state === "running");
  return h(
    "section",
    { class: "plugins" },
    error && h("div", { class: "error" }, error),
    problem && h("div", { class: "error" }, problem),
    h(PluginInstall, { onInstalled: reload }),
    h(
      "table",
      null,
      h(
        "tr",
        null,
        h("th", null, t("name")),
        h("th", null, t("state")),
        h("th", null, t("actions")),
      ),
      (data?.plugins ?? []).map((p) =>
        h(
          "tr",
          { key: p.name, "data-plugin-row": p.name },
          h(
            "td",
            null,
            h("b", null, p.name),
            h("small", null, ` ${tMaybe(`kind_${p.kind}`, p.kind ?? "")} ${p.version ?? ""}`),
            about(p) && h("p", { class: "about" }, about(p)),
            h(PluginDetails, { p }),
          ),
          h(PluginHealth, { p }),
          h(PluginActions, { p, act }),
        )
      ),
    ),
    running("agentcli") && h(TerminalsView, null),
    running("changes") && h(ChangesView, null),
    running("cmd") && h(CmdHistoryView, null),
    running("timer") && h(TimersView, null),
  );
}
