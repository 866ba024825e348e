/** The owner's questions (cmd's "run this command?") as cards above the message box. */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { messageOf, send } from "./_api.ts";
import { loadQuestions, questions } from "./_live.ts";
import { t, timeOf } from "./_i18n.ts";

/** The waiting questions, each with Approve and Deny. */
export function Questions() {
  const [problem, setProblem] = useState("");
  useEffect(loadQuestions, []);
  const answer = (id: string, approve: boolean) =>
    send("POST", `/api/v1/questions/${encodeURIComponent(id)}`, { approve }).then(() => {
      questions.value = questions.value.filter((q) => q.id !== id);
      setProblem("");
    }, (e) => setProblem(messageOf(e)));
  if (questions.value.length === 0) return null;
  return h(
    "div",
    { class: "questions", role: "region", "aria-label": t("questions") },
    questions.value.map((q) =>
      h(
        "div",
        { key: q.id, class: "question", "data-question": q.id },
        h(
          "div",
          { class: "meta" },
          h("span", { class: "badge" }, q.plugin),
          h("time", null, `${t("answerBy")} ${timeOf(q.expiresAt)}`),
        ),
        h("strong", null, q.title),
        q.detail && h("pre", null, q.detail),
        h(
          "div",
          { class: "row" },
          h(
            "button",
            { class: "primary approve", onClick: () => answer(q.id, true) },
            t("approve"),
          ),
          h("button", { class: "deny", onClick: () => answer(q.id, false) }, t("deny")),
        ),
      )
    ),
    problem && h("div", { class: "error" }, problem),
  );
}
