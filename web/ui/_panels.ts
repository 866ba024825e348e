/** LLM sources and residents. */
import { h } from "preact";
import { t, tMaybe } from "./_i18n.ts";
import { useLoad } from "./_load.ts";
import { UsageChart, type UsageReportView } from "./_usage.ts";

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
  const [data, error] = useLoad<{ sources: Source[]; usage: Usage[]; report?: UsageReportView }>(
    "/api/v1/llm",
  );
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
          h(
            "td",
            null,
            tMaybe(`health_${s.state}`, s.state),
            s.lastError && h("div", { class: "error" }, s.lastError),
          ),
          h("td", null, s.calls),
          h("td", null, s.failures),
        )
      ),
    ),
    h("h3", null, t("usage")),
    data?.report && h(UsageChart, { report: data.report }),
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
