/**
 * One setting as a person edits it: its label and one line of help, the control its type calls
 * for (a switch, a number with its unit, a choice, a secret, a list, text), saved through the
 * registry so a refused value shows the registry's own reason under the field.
 */
import { h } from "preact";
import { useState } from "preact/hooks";
import { messageOf, send } from "./_api.ts";
import { num, t } from "./_i18n.ts";
import { inWords, type Setting, textOf, unitOf } from "./_settings_meta.ts";

/** What the control sends: a typed value, or text the registry parses by the key's type. */
type Body = { value: unknown } | { text: string } | { unset: true };

const idOf = (key: string) => "s-" + key.replace(/[^a-zA-Z0-9_-]/g, "-");

function textOfValue(s: Setting): string {
  if (s.type === "string") return String(s.value ?? "");
  if (Array.isArray(s.value) && s.value.every((v) => typeof v === "string")) {
    return s.value.join("\n");
  }
  return s.type === "number" ? String(s.value) : JSON.stringify(s.value, null, 2);
}

/** A list of strings is edited one per line. */
const isList = (s: Setting) => Array.isArray(s.default) || Array.isArray(s.value);

/**
 * Why `text` cannot be this number setting's value, in the page's language; undefined when it
 * can (the registry still has the last word, and its reason shows when it refuses).
 */
export function numberProblem(s: Setting, text: string): string | undefined {
  if (s.type !== "number") return undefined;
  const n = Number(text);
  const whole = s.integer === true;
  const fits = text.trim() !== "" && Number.isFinite(n) && (!whole || Number.isInteger(n)) &&
    (s.min === undefined || n >= s.min) && (s.max === undefined || n <= s.max);
  if (fits) return undefined;
  const vars = { min: num(s.min ?? 0), max: num(s.max ?? 0) };
  const kind = whole ? "Whole" : "Number";
  if (s.min !== undefined && s.max !== undefined) return t(`enter${kind}Between`, vars);
  if (s.min !== undefined) return t(`enter${kind}From`, vars);
  return t(`enter${kind}`);
}

function bodyOf(s: Setting, text: string): Body {
  if (isList(s)) return { value: text.split("\n").map((l) => l.trim()).filter((l) => l !== "") };
  if (s.type === "number" && text.trim() !== "" && Number.isFinite(Number(text))) {
    return { value: Number(text) };
  }
  return { text };
}

/** A switch that saves when flipped. */
function Toggle({ s, save }: { s: Setting; save: (b: Body) => void }) {
  const on = s.value === true;
  return h(
    "button",
    {
      type: "button",
      role: "switch",
      id: idOf(s.key),
      class: `switch${on ? " on" : ""}`,
      "aria-checked": on ? "true" : "false",
      "aria-describedby": idOf(s.key) + "-help",
      disabled: s.source === "env",
      onClick: () => save({ value: !on }),
    },
    h("span", { class: "knob", "aria-hidden": "true" }),
    h("span", { class: "sr-only" }, on ? t("on") : t("off")),
  );
}

/** A choice among the values the schema allows; saves on change. */
function Choice({ s, save }: { s: Setting; save: (b: Body) => void }) {
  return h(
    "select",
    {
      id: idOf(s.key),
      value: String(s.value),
      "aria-describedby": idOf(s.key) + "-help",
      disabled: s.source === "env",
      onChange: (e: Event) => save({ value: (e.target as HTMLSelectElement).value }),
    },
    (s.choices ?? []).map((c) => h("option", { key: c, value: c }, c)),
  );
}

/** Text, a number with its unit, a secret, a list or JSON, saved with its button. */
function Entry(
  { s, save, refuse }: { s: Setting; save: (b: Body) => void; refuse: (why: string) => void },
) {
  const [text, setText] = useState(s.secret ? "" : textOfValue(s));
  const unit = s.type === "number" ? unitOf(s.key) : undefined;
  const words = s.type === "number" ? inWords(s.key, Number(text)) : undefined;
  const multi = isList(s) || s.type === "json";
  const common = {
    id: idOf(s.key),
    value: text,
    "aria-describedby": idOf(s.key) + "-help",
    "aria-invalid": s.problem ? "true" : undefined,
    disabled: s.source === "env",
    onInput: (e: Event) => setText((e.target as HTMLInputElement).value),
  };
  return h(
    "form",
    {
      class: "row entry",
      // The registry's reason shows under the field, in place of the browser's bubble.
      noValidate: true,
      onSubmit: (e: Event) => {
        e.preventDefault();
        const problem = numberProblem(s, text);
        if (problem) refuse(problem);
        else save(bodyOf(s, text));
      },
    },
    multi
      ? h("textarea", { ...common, rows: Math.min(8, Math.max(2, text.split("\n").length)) })
      : h("input", {
        ...common,
        type: s.secret ? "password" : s.type === "number" ? "number" : "text",
        autocomplete: s.secret ? "new-password" : "off",
        placeholder: s.secret ? (s.isDefault ? t("secretEmpty") : t("secretSet")) : undefined,
        min: s.min,
        max: s.max,
        step: s.type === "number" ? (s.integer ? 1 : "any") : undefined,
        inputmode: s.type === "number" ? (s.integer ? "numeric" : "decimal") : undefined,
      }),
    unit && h("span", { class: "unit" }, unit),
    words && h("span", { class: "hint" }, `= ${words}`),
    h("button", { type: "submit", class: "small", disabled: s.source === "env" }, t("save")),
  );
}

/** One setting, saved in place; `onSaved` gets the registry's entry after a save. */
export function SettingField(
  { s, onSaved, showKey = false }: {
    s: Setting;
    onSaved: (s: Setting) => void;
    showKey?: boolean;
  },
) {
  const [note, setNote] = useState<{ ok: boolean; text: string } | undefined>();
  const { label, help } = textOf(s);
  const save = (body: Body) =>
    void send<{ setting: Setting }>("PUT", `/api/v1/settings/${encodeURIComponent(s.key)}`, body)
      .then((r) => {
        setNote({ ok: true, text: t("saved") });
        onSaved(r.setting);
      }, (e) => setNote({ ok: false, text: messageOf(e) }));
  const control = s.type === "boolean"
    ? h(Toggle, { s, save })
    : s.choices
    ? h(Choice, { s, save })
    : h(Entry, {
      key: String(s.value),
      s,
      save,
      refuse: (why: string) => setNote({ ok: false, text: why }),
    });
  return h(
    "div",
    { class: `setting${note && !note.ok ? " invalid" : ""}`, "data-key": s.key },
    h(
      "div",
      { class: "setting-head" },
      h("label", { for: idOf(s.key) }, label),
      s.restart && h("span", { class: "tag" }, t("needsRestart")),
      s.source === "env" && h("span", { class: "tag" }, t("fromEnv")),
      !s.isDefault && s.source === "stored" &&
        h(
          "button",
          { type: "button", class: "link small", onClick: () => save({ unset: true }) },
          t("reset"),
        ),
    ),
    h(
      "div",
      { class: "hint", id: idOf(s.key) + "-help" },
      help,
      showKey && h("code", { class: "key" }, " ", s.key),
      !s.isDefault && s.type !== "boolean" && !s.secret &&
        h("span", null, ` · ${t("defaultIs")} ${shown(s.default)}`),
    ),
    control,
    s.problem && h("div", { class: "error" }, s.problem),
    note && h("div", { class: note.ok ? "ok" : "error validation", role: "status" }, note.text),
  );
}

function shown(value: unknown): string {
  if (typeof value === "number") return num(value);
  if (typeof value === "string") return value === "" ? "—" : value;
  return JSON.stringify(value);
}
