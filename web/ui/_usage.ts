/** The LLM panel's usage chart: tokens per day over the last 30 days, and totals by cause. */
import { h } from "preact";
import { t } from "./_i18n.ts";

interface Sum {
  promptTokens: number;
  completionTokens: number;
  calls: number;
  cost?: number;
}

/** What `/api/v1/llm` sends as `report` (core UsageReport). */
export interface UsageReportView {
  from: string;
  to: string;
  currency: string;
  days: ({ day: string } & Sum)[];
  causes: ({ cause: string } & Sum)[];
  total: Sum;
}

const WIDTH = 300;
const HEIGHT = 60;

const tokens = (s: Sum) => s.promptTokens + s.completionTokens;
const money = (s: Sum, currency: string) =>
  s.cost === undefined ? "" : ` · ${currency} ${s.cost.toFixed(s.cost < 1 ? 4 : 2)}`;

/** A bar per day (its tokens on hover) and the causes that spent them. */
export function UsageChart({ report }: { report: UsageReportView }) {
  const max = Math.max(1, ...report.days.map(tokens));
  const bar = WIDTH / Math.max(1, report.days.length);
  return h(
    "figure",
    { class: "usage-chart" },
    h(
      "figcaption",
      null,
      `${t("usage30")}: ${tokens(report.total).toLocaleString()}`,
      money(report.total, report.currency),
    ),
    h(
      "svg",
      {
        viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
        width: "100%",
        height: HEIGHT,
        preserveAspectRatio: "none", // 30 bars across the panel's width
        role: "img",
        "aria-label": t("usage30"),
      },
      report.days.map((d, i) => {
        const height = Math.round((tokens(d) / max) * (HEIGHT - 2));
        return h(
          "rect",
          {
            key: d.day,
            x: i * bar + 1,
            y: HEIGHT - height,
            width: Math.max(1, bar - 2),
            height,
            "data-day": d.day,
          },
          h("title", null, `${d.day}: ${tokens(d).toLocaleString()}${money(d, report.currency)}`),
        );
      }),
    ),
    report.causes.length > 0 &&
      h(
        "table",
        { class: "usage-causes" },
        h(
          "tr",
          null,
          h("th", null, t("cause")),
          h("th", null, t("usage")),
          h("th", null, t("calls")),
        ),
        report.causes.map((c) =>
          h(
            "tr",
            { key: c.cause },
            h("td", null, c.cause),
            h("td", null, tokens(c).toLocaleString(), money(c, report.currency)),
            h("td", null, c.calls),
          )
        ),
      ),
  );
}
