/**
 * What the working built-ins did, under the plugin list: the change tracker's changesets (a
 * diff each, rolled back here), cmd's recent runs and the pending timers. Each reads its
 * plugin's own routes (docs/plugins.md); a refresh button reloads, since none of them is live.
 */
import { type ComponentChildren, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, messageOf, send } from "./_api.ts";
import { t } from "./_i18n.ts";

interface ChangesetRow {
  id: string;
  createdAt: number;
  tools: string[];
  files: { path: string; change: string }[];
  untracked?: string[];
  rollbackOf?: string;
  rolledBack?: { by: string };
}

interface RunRow {
  id: number;
  command: string;
  workdir: string;
  startedAt: number;
  status: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

interface TimerRow {
  id: string;
  message: string;
  kind: string;
  dueAt: number;
  cron?: string;
  everyMs?: number;
}

const when = (ms: number) => new Date(ms).toLocaleString();

/** Load `path` into state; `reload` asks again. Errors show in the section. */
function useRoute<T>(path: string): { data?: T; error: string; reload(): void } {
  const [data, setData] = useState<T | undefined>();
  const [error, setError] = useState("");
  const reload = () =>
    void api<T>(path).then((d) => (setData(d), setError("")), (e) => setError(messageOf(e)));
  useEffect(reload, [path]);
  return { data, error, reload };
}

/** A titled section with a refresh button and the load error, if any. */
function section(
  name: string,
  title: string,
  load: { error: string; reload(): void },
  ...children: ComponentChildren[]
) {
  return h(
    "section",
    { class: `work ${name}` },
    h("h3", null, title, " ", h("button", { class: "small", onClick: load.reload }, t("refresh"))),
    load.error && h("div", { class: "error" }, load.error),
    ...children,
  );
}

/** The change tracker's changesets: newest first; one opens as a diff with a rollback button. */
export function ChangesView() {
  const route = "/api/v1/plugins/changes/sets";
  const load = useRoute<{ changesets: ChangesetRow[] }>(route);
  const { data, reload } = load;
  const [open, setOpen] = useState<{ id: string; diff: string } | undefined>();
  const [said, setSaid] = useState("");
  const show = (id: string) =>
    void api<{ diff: string }>(`${route}/${id}`).then(
      (r) => (setOpen({ id, diff: r.diff }), setSaid("")),
      (e) => setSaid(messageOf(e)),
    );
  const rollback = (id: string) =>
    void send<{ rollback: { id: string } }>("POST", `${route}/${id}/rollback`).then((r) => {
      setSaid(t("rolledBack", { id, undo: r.rollback.id }));
      setOpen(undefined);
      reload();
    }, (e) => setSaid(messageOf(e)));
  const sets = data?.changesets ?? [];
  return section(
    "changes",
    t("changesets"),
    load,
    sets.length === 0 && data && h("p", { class: "hint" }, t("noChanges")),
    h(
      "ul",
      null,
      sets.slice(0, 50).map((s) =>
        h(
          "li",
          { key: s.id, "data-changeset": s.id },
          h("button", { class: open?.id === s.id ? "on" : "", onClick: () => show(s.id) }, s.id),
          ` ${when(s.createdAt)} [${s.tools.join(", ")}] `,
          s.files.map((f) => `${f.change} ${f.path}`).join(", "),
          s.rollbackOf && ` (${t("rollbackOf")} ${s.rollbackOf})`,
          s.rolledBack && ` (${t("rolledBackBy")} ${s.rolledBack.by})`,
        )
      ),
    ),
    said && h("div", { class: "said", role: "status" }, said),
    open && h(
      "div",
      { class: "changeset" },
      h("pre", { id: "changeset-diff", class: "terminal" }, open.diff),
      h("button", { class: "danger", onClick: () => rollback(open.id) }, t("rollback")),
    ),
  );
}

/** cmd's last runs, newest first; a run folds out its output. */
export function CmdHistoryView() {
  const load = useRoute<{ history: RunRow[] }>("/api/v1/plugins/cmd/history");
  const { data } = load;
  const runs = data?.history ?? [];
  return section(
    "cmd-history",
    t("commands"),
    load,
    runs.length === 0 && data && h("p", { class: "hint" }, t("noCommands")),
    runs.map((run) =>
      h(
        "details",
        { key: run.id, "data-run": run.id },
        h(
          "summary",
          null,
          h("code", null, run.command),
          ` ${when(run.startedAt)} ${run.status}`,
          run.exitCode !== null && ` (${run.exitCode})`,
        ),
        h("div", { class: "hint" }, run.workdir),
        run.stdout && h("pre", { class: "terminal" }, run.stdout),
        run.stderr && h("pre", { class: "terminal stderr" }, run.stderr),
      )
    ),
  );
}

/** The pending timers, soonest first, each with a cancel button. */
export function TimersView() {
  const route = "/api/v1/plugins/timer/timers";
  const load = useRoute<{ timers: TimerRow[] }>(route);
  const { data, reload } = load;
  const [said, setSaid] = useState("");
  const cancel = (id: string) =>
    void send("POST", `${route}/${id}/cancel`).then(
      () => (setSaid(""), reload()),
      (e) => setSaid(messageOf(e)),
    );
  const timers = data?.timers ?? [];
  return section(
    "timers",
    t("timers"),
    load,
    timers.length === 0 && data && h("p", { class: "hint" }, t("noTimers")),
    h(
      "ul",
      null,
      timers.map((timer) =>
        h(
          "li",
          { key: timer.id, "data-timer": timer.id },
          `${when(timer.dueAt)} `,
          timer.cron
            ? h("code", null, timer.cron)
            : timer.everyMs
            ? t("every", { s: timer.everyMs / 1000 })
            : "",
          ` ${timer.message} `,
          h("button", { class: "small", onClick: () => cancel(timer.id) }, t("cancel")),
        )
      ),
    ),
    said && h("div", { class: "error" }, said),
  );
}
