/** One message of the conversation: who, where from, when, and the reply with its folds. */
import { Thumbs } from "./_attach.ts";
import { h } from "preact";
import type { Message } from "./_chat_store.ts";
import { Markdown } from "./_markdown.ts";
import { dayOf, t, type TextKey, timeOf, tMaybe } from "./_i18n.ts";

/** What the reply bubble says while its turn works, in words. */
function phaseText(m: Message): string {
  if (m.stage?.startsWith("notice:")) return m.stage.slice("notice:".length);
  const running = m.tools.findLast((x) => x.state === "running");
  if (running) return t("phaseTool", { tool: running.name });
  if (m.text !== "") return "";
  if (m.stage === "before_toolcall" || m.stage === "after_toolcall") return t("phaseTools");
  return t("phaseThinking");
}

/** The channel a message came through, named in the current language where known. */
export function channelName(channel: string): string {
  return tMaybe(`channel_${channel}`, channel);
}

function meta(m: Message) {
  const from = m.role === "event" ? m.source : m.channel;
  return h(
    "div",
    { class: "meta" },
    h("span", { class: `badge ch-${from}`, "data-channel": from }, channelName(from)),
    h("time", { dateTime: new Date(m.at).toISOString(), title: dayOf(m.at) }, timeOf(m.at)),
  );
}

function folds(m: Message) {
  return [
    m.reasoning !== "" &&
    h(
      "details",
      { class: "reasoning", key: "r" },
      h("summary", null, t("reasoning")),
      h("pre", null, m.reasoning),
    ),
    m.tools.length > 0 && h(
      "details",
      { class: "tools", key: "t" },
      h("summary", null, `${t("tools")} (${m.tools.length})`),
      h(
        "ul",
        null,
        m.tools.map((x) =>
          h(
            "li",
            { key: x.id, class: x.state },
            h("code", null, x.name),
            x.state === "failed" && h("span", { class: "tag bad" }, t("failed")),
            x.args !== "" && h("span", { class: "args" }, " ", x.args.slice(0, 400)),
          )
        ),
      ),
    ),
  ];
}

const STATUS_TEXT: Record<string, TextKey> = {
  stopped: "stopped",
  error: "replyError",
  refused: "replyRefused",
};

/** A bubble. */
export function Bubble({ m }: { m: Message }) {
  if (m.role === "notice") {
    return h("div", { class: "msg notice", role: "alert" }, m.text);
  }
  if (m.role !== "agent") {
    return h(
      "div",
      { class: `msg ${m.role}`, "data-turn": m.turnId },
      meta(m),
      h(Thumbs, { digests: m.images ?? [] }),
      m.text !== "" && h("div", { class: "text plain" }, m.text),
    );
  }
  const failed = m.status === "error" || m.status === "refused";
  const phase = m.done ? "" : phaseText(m);
  const status = m.status ? STATUS_TEXT[m.status] : undefined;
  return h(
    "div",
    {
      class: `msg agent${m.done ? " done" : " live"}${failed ? " failed" : ""}`,
      "data-turn": m.turnId,
      "aria-busy": m.done ? undefined : "true",
    },
    meta(m),
    folds(m),
    phase &&
      h("div", { class: "phase" }, h("span", { class: "dots", "aria-hidden": "true" }), phase),
    (m.text !== "" || m.done) && h(Markdown, { text: m.text, cls: "text" }),
    h(Thumbs, { digests: m.images ?? [] }),
    status && h("div", { class: "status" }, t(status)),
  );
}

/** A line between messages of different days. */
export function DayLine({ at }: { at: number }) {
  return h("div", { class: "day", role: "separator" }, h("span", null, dayOf(at)));
}
