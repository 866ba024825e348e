/** A minimal live view of agentcli's terminals: the list, and one terminal's output, polled. */
import { h } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, messageOf } from "./_api.ts";
import { t } from "./_i18n.ts";

interface TerminalRow {
  id: string;
  command: string;
  rows: number;
  cols: number;
  exit?: { code: number };
}

const ROUTE = "/api/v1/plugins/agentcli/terminals";
/** Characters of output kept on the page. */
const KEEP = 64_000;
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-_]/g;

/** Poll `fn` every `ms` while mounted. */
function usePoll(fn: () => void, ms: number, deps: unknown[]) {
  useEffect(() => {
    fn();
    const timer = setInterval(fn, ms);
    return () => clearInterval(timer);
  }, deps);
}

/** The terminals and the chosen one's output, refreshed every second. */
export function TerminalsView() {
  const [list, setList] = useState<TerminalRow[]>([]);
  const [open, setOpen] = useState<string | undefined>();
  const [text, setText] = useState("");
  const [error, setError] = useState("");
  const from = useRef(0);
  usePoll(
    () =>
      void api<{ terminals: TerminalRow[] }>(ROUTE).then((r) => {
        setList(r.terminals);
        setError("");
      }, (e) => setError(messageOf(e))),
    2000,
    [],
  );
  usePoll(
    () => {
      if (open === undefined) return;
      void api<{ text: string; to: number }>(`${ROUTE}/${open}?from=${from.current}`).then((r) => {
        from.current = r.to;
        if (r.text !== "") setText((old) => (old + r.text.replace(ANSI, "")).slice(-KEEP));
      }, (e) => setError(messageOf(e)));
    },
    1000,
    [open],
  );
  const choose = (id: string) => {
    from.current = 0;
    setText("");
    setOpen(id);
  };
  return h(
    "section",
    { class: "terminals" },
    h("h3", null, t("terminals")),
    error && h("div", { class: "error" }, error),
    list.length === 0 && h("p", { class: "hint" }, t("noTerminals")),
    h(
      "ul",
      null,
      list.map((term) =>
        h(
          "li",
          { key: term.id },
          h("button", {
            class: open === term.id ? "on" : "",
            onClick: () => choose(term.id),
          }, term.id),
          ` ${term.command} ${term.rows}x${term.cols}`,
          term.exit && ` (exit ${term.exit.code})`,
        )
      ),
    ),
    open !== undefined &&
      h("pre", { id: "terminal-output", class: "terminal" }, text.replace(/\r/g, "")),
  );
}
