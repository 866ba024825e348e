/** Skills: what <home>/skills holds, install one from npm or ClawHub (reviewed first), remove. */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, messageOf, send } from "./_api.ts";
import { t } from "./_i18n.ts";

interface Skill {
  name: string;
  description: string;
  version?: string;
  source: string;
}

interface Review {
  source: string;
  integrity?: string;
  lines: string[];
}

/** The skills panel. */
export function SkillsView() {
  const [skills, setSkills] = useState<Skill[]>([]);
  const [source, setSource] = useState("");
  const [problem, setProblem] = useState("");
  const [busy, setBusy] = useState(false);
  const load = () =>
    void api<{ skills: Skill[] }>("/api/v1/skills").then(
      (r) => (setSkills(r.skills), setProblem("")),
      (e) => setProblem(messageOf(e)),
    );
  useEffect(load, []);
  const install = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      // The server installs only what the owner saw: the review first, then a confirm naming it.
      const { review } = await send<{ review: Review }>("POST", "/api/v1/skills", { source });
      if (confirm(`${review.lines.join("\n")}\n\n${t("installSkillConfirm")}`)) {
        await send("POST", "/api/v1/skills", { source: review.source, confirm: review.integrity });
        setSource("");
      }
      load();
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };
  const remove = (name: string) =>
    send("DELETE", `/api/v1/skills/${encodeURIComponent(name)}`).then(
      load,
      (e) => setProblem(messageOf(e)),
    );
  return h(
    "section",
    { class: "skills" },
    problem && h("div", { class: "error" }, problem),
    h(
      "table",
      null,
      h("tr", null, h("th", null, t("name")), h("th", null, t("skillSource")), h("th", null, "")),
      skills.map((s) =>
        h(
          "tr",
          { key: s.name },
          h("td", null, s.name, h("div", null, h("small", null, s.description))),
          h("td", null, h("code", null, s.source)),
          h(
            "td",
            { class: "actions" },
            h("button", { onClick: () => remove(s.name) }, t("remove")),
          ),
        )
      ),
    ),
    skills.length === 0 && h("p", null, t("noSkills")),
    h(
      "form",
      { class: "install-skill", onSubmit: install },
      h("input", {
        name: "source",
        placeholder: "npm:@scope/skill  |  clawhub-slug",
        value: source,
        onInput: (e: Event) => setSource((e.target as HTMLInputElement).value),
      }),
      h("button", { type: "submit", disabled: busy || source.trim() === "" }, t("installSkill")),
    ),
  );
}
