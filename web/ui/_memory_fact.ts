/**
 * One fact of an entity: what it says and since when, its history (every version with its
 * validity, on click), and edit / close / delete, each offering an undo for a few seconds.
 */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, messageOf, send } from "./_api.ts";
import { stampOf, t } from "./_i18n.ts";
import { value } from "./_load.ts";
import { offerUndo } from "./_undo.ts";

/** A fact as the memory routes return it. */
export interface Relation {
  id: number;
  source: string;
  target: string;
  type: string;
  status: string;
  confidence: number;
  validFrom: number;
  validTo?: number;
  sentence?: string;
}

const path = (id: number) => `/api/v1/memory/relations/${id}`;
const patch = (id: number, body: Record<string, unknown>) => send("PATCH", path(id), body);

/** "since 3 May 2026" / "3 May 2026 – 9 Jun 2026", and "deleted", in the owner's locale. */
function validity(r: Relation): string {
  const span = r.validTo === undefined
    ? t("validSince", { from: stampOf(r.validFrom) })
    : t("validSpan", { from: stampOf(r.validFrom), to: stampOf(r.validTo) });
  return r.status === "deleted" ? `${span} · ${t("factDeleted")}` : span;
}

/** Every version of fact `id`, oldest first, each with its validity. */
function FactHistory({ id }: { id: number }) {
  const [versions, setVersions] = useState<Relation[] | undefined>();
  const [error, setError] = useState("");
  useEffect(() => {
    void api<{ versions: Relation[] }>(`${path(id)}/versions`)
      .then((r) => setVersions(r.versions), (e) => setError(messageOf(e)));
  }, [id]);
  if (error) return h("div", { class: "error" }, error);
  if (!versions) return h("p", { class: "hint" }, t("loading"));
  return h(
    "ol",
    { class: "versions", "aria-label": t("factHistory") },
    versions.map((v) =>
      h(
        "li",
        {
          key: v.id,
          class: v.id === id ? "this" : "",
          "data-state": v.status === "deleted"
            ? "deleted"
            : v.validTo === undefined
            ? "open"
            : "closed",
        },
        h("span", null, `${v.type} → `, h("b", null, v.target)),
        h("small", null, ` ${validity(v)}`),
      )
    ),
  );
}

function EditForm({ r, onDone }: { r: Relation; onDone: (changed: boolean) => void }) {
  const [type, setType] = useState(r.type);
  const [target, setTarget] = useState(r.target);
  const [error, setError] = useState("");
  const submit = (e: Event) => {
    e.preventDefault();
    patch(r.id, { type, target }).then(() => {
      offerUndo(
        t("factChanged"),
        () => patch(r.id, { type: r.type, target: r.target }),
        () => onDone(true),
      );
      onDone(true);
    }, (e) => setError(messageOf(e)));
  };
  return h(
    "form",
    { class: "inline", onSubmit: submit },
    h("span", null, r.source, " "),
    h("input", {
      value: type,
      "aria-label": t("predicate"),
      onInput: (e: Event) => setType(value(e)),
    }),
    h("input", {
      value: target,
      "aria-label": t("target"),
      onInput: (e: Event) => setTarget(value(e)),
    }),
    h("button", { type: "submit" }, t("save")),
    h("button", { type: "button", onClick: () => onDone(false) }, t("cancel")),
    error && h("div", { class: "error" }, error),
  );
}

/** A fact of the entity panel; `onChange` reloads what shows it. */
export function FactRow({ r, onChange }: { r: Relation; onChange: () => void }) {
  const [editing, setEditing] = useState(false);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState("");
  const deleted = r.status === "deleted";
  const closed = r.validTo !== undefined || deleted;
  // Each change offers its inverse through the same route.
  const change = (body: Record<string, unknown> | "delete", message: string, inverse: object) =>
    (body === "delete" ? send("DELETE", path(r.id)) : patch(r.id, body)).then(() => {
      setError("");
      offerUndo(message, () => patch(r.id, inverse as Record<string, unknown>), onChange);
      onChange();
    }, (e) => setError(messageOf(e)));
  const buttons = deleted
    ? [h("button", {
      key: "restore",
      class: "small",
      onClick: () => change({ status: "active" }, t("factRestored"), { status: "deleted" }),
    }, t("restore"))]
    : r.validTo !== undefined
    ? [h("button", {
      key: "reopen",
      class: "small",
      onClick: () => change({ reopen: true }, t("factReopened"), { close: true }),
    }, t("reopen"))]
    : [
      h("button", { key: "edit", class: "small", onClick: () => setEditing(true) }, t("edit")),
      h("button", {
        key: "close",
        class: "small",
        title: t("closeFactHint"),
        onClick: () => change({ close: true }, t("factClosed"), { reopen: true }),
      }, t("closeFact")),
      h("button", {
        key: "delete",
        class: "small danger",
        onClick: () => change("delete", t("factDeletedNow"), { status: "active" }),
      }, t("delete")),
    ];
  return h(
    "li",
    {
      class: closed ? "fact closed" : "fact",
      "data-relation": r.id,
      "data-state": deleted ? "deleted" : closed ? "closed" : "open",
    },
    editing
      ? h(EditForm, { r, onDone: (changed) => (setEditing(false), changed && onChange()) })
      : h(
        "div",
        { class: "fact-line" },
        h(
          "button",
          {
            class: "link fact-text",
            "aria-expanded": open,
            title: t("factHistory"),
            onClick: () => setOpen(!open),
          },
          h("b", null, r.source),
          ` —${r.type}→ `,
          h("b", null, r.target),
        ),
        h("small", null, ` ${validity(r)} `),
        ...buttons,
      ),
    r.sentence && h("blockquote", null, r.sentence),
    open && h(FactHistory, { key: `${r.id}:${r.validTo}:${r.status}`, id: r.id }),
    error && h("div", { class: "error" }, error),
  );
}
