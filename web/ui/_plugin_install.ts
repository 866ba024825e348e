/**
 * What a plugin may do, in words, and installing one from the page: the package is uploaded
 * once to be reviewed (nothing installed), its requests shown, and installed only when the owner
 * confirms — by uploading it again with the reviewed sha256, so what runs is what was shown.
 */
import { h } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, messageOf } from "./_api.ts";
import { t, type TextKey, tMaybe } from "./_i18n.ts";

/** A manifest's requests (the host's permission review, or a plugin's declared permissions). */
export interface Permissions {
  capabilities?: string[];
  env?: string[];
  read?: string[];
  write?: string[];
  net?: string[];
  run?: string[];
}

/** A package's review as the upload route answers it. */
export interface Review extends Permissions {
  name: string;
  version: string;
  kind: string;
  entry: string;
  sha256: string;
  homeagentEnv?: string[];
  native?: string;
  platforms?: string[];
}

const ASKS: [keyof Permissions, TextKey][] = [
  ["env", "permEnv"],
  ["read", "permRead"],
  ["write", "permWrite"],
  ["net", "permNet"],
  ["run", "permRun"],
  ["capabilities", "permCapabilities"],
];

/** The permissions as a list in the page's words; none beyond its folder said so. */
export function PermissionList({ p, kind }: { p: Permissions; kind?: string }) {
  const asked = ASKS.filter(([key]) => (p[key] ?? []).length > 0);
  const sandboxed = ASKS.slice(0, 5).every(([key]) => (p[key] ?? []).length === 0);
  return h(
    "ul",
    { class: "permissions" },
    kind && h("li", { key: "kind", class: "hint" }, tMaybe(`runs_${kind}`, "")),
    sandboxed && h("li", { key: "none" }, t("permNone")),
    asked.map(([key, label]) =>
      h(
        "li",
        { key, "data-permission": key },
        h("span", null, `${t(label)}: `),
        (p[key] ?? []).map((item) => h("code", { key: item }, item, " ")),
      )
    ),
  );
}

/** The review of an uploaded package, with Install and Cancel. */
function ReviewCard(
  { review, onConfirm, onCancel, busy }: {
    review: Review;
    onConfirm: () => void;
    onCancel: () => void;
    busy: boolean;
  },
) {
  const card = useRef<HTMLDivElement>(null);
  useEffect(() => card.current?.scrollIntoView({ block: "nearest" }), []);
  return h(
    "div",
    {
      class: "card review",
      id: "plugin-review",
      role: "dialog",
      "aria-labelledby": "review-title",
    },
    h(
      "h3",
      { id: "review-title" },
      t("reviewTitle", { name: review.name, version: review.version }),
    ),
    h("p", { class: "hint" }, t("installConfirm")),
    h(PermissionList, { p: review, kind: review.kind }),
    (review.homeagentEnv ?? []).length > 0 &&
      h("p", { class: "error" }, t("permHomeagentEnv", { names: review.homeagentEnv!.join(", ") })),
    review.native && h("p", { class: "error" }, t("permNative", { why: review.native })),
    h("p", null, h("small", null, `sha256 ${review.sha256}`)),
    h(
      "div",
      { class: "row" },
      h(
        "button",
        { id: "review-install", class: "primary", disabled: busy, onClick: onConfirm },
        t("install"),
      ),
      h("button", { id: "review-cancel", disabled: busy, onClick: onCancel }, t("cancel")),
    ),
  );
}

/** The upload field and, once a file is chosen, its review to confirm. */
export function PluginInstall({ onInstalled }: { onInstalled: () => void }) {
  const [pending, setPending] = useState<{ body: ArrayBuffer; review: Review } | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const post = (body: ArrayBuffer, query = "") =>
    api<{ review: Review }>(`/api/v1/plugins/upload${query}`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body,
    });
  const choose = async (e: Event) => {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = ""; // the same file may be chosen again
    if (!file) return;
    setError("");
    const body = await file.arrayBuffer();
    post(body).then(({ review }) => setPending({ body, review }), (e) => setError(messageOf(e)));
  };
  const confirm = () => {
    if (!pending) return;
    setBusy(true);
    post(pending.body, `?confirm=${pending.review.sha256}`).then(() => {
      setPending(undefined);
      onInstalled();
    }, (e) => setError(messageOf(e))).finally(() => setBusy(false));
  };
  return h(
    "div",
    { class: "install" },
    h(
      "label",
      { class: "upload" },
      t("upload"),
      " ",
      h("input", { id: "plugin-file", type: "file", accept: ".hmap,.zip", onChange: choose }),
    ),
    error && h("div", { class: "error" }, error),
    pending &&
      h(ReviewCard, {
        review: pending.review,
        busy,
        onConfirm: confirm,
        onCancel: () => setPending(undefined),
      }),
  );
}
