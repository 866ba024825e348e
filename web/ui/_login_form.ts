/** The login form: the token, and why the last try or the login link failed, in words. */
import { h } from "preact";
import { useState } from "preact/hooks";
import { authed } from "./_api.ts";
import { t, waitText } from "./_i18n.ts";

/** Text with `command` spans shown as code, as the UI strings write them. */
export function rich(text: string) {
  return text.split("`").map((part, i) => i % 2 === 1 ? h("code", { key: i }, part) : part);
}

/** Why the login form is shown: what the server said about a login link or the last try. */
type Notice =
  | { kind: "none" }
  | { kind: "wrong" | "link_wrong" | "cross_site" }
  | { kind: "throttled"; seconds: number };

/**
 * The notice the server put on the page for a failed `/?token=` link, once (the page's first
 * script has already taken the token out of the address bar).
 */
function noticeFromPage(): Notice {
  const { login, retryAfter } = document.body.dataset;
  if (login === undefined) return { kind: "none" };
  if (login === "throttled") return { kind: "throttled", seconds: Number(retryAfter) || 60 };
  return { kind: login === "cross_site" ? "cross_site" : "link_wrong" };
}

function noticeText(notice: Notice): string {
  switch (notice.kind) {
    case "none":
      return "";
    case "wrong":
      return t("badToken");
    case "link_wrong":
      return t("loginLinkWrong");
    case "cross_site":
      return t("loginCrossSite");
    case "throttled":
      return t("tooMany", { minutes: waitText(notice.seconds) });
  }
}

const pageNotice = noticeFromPage();

export function Login() {
  const [token, setToken] = useState("");
  const [notice, setNotice] = useState<Notice>(pageNotice);
  const submit = async (e: Event) => {
    e.preventDefault();
    const response = await fetch("/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    });
    if (response.ok) authed.value = true;
    else if (response.status === 429) {
      const seconds = Number(response.headers.get("retry-after")) || 60;
      setNotice({ kind: "throttled", seconds });
    } else setNotice({ kind: "wrong" });
  };
  const text = noticeText(notice);
  return h(
    "form",
    { id: "login", class: "login stack", onSubmit: submit },
    h("h2", null, t("loginTitle")),
    h("p", { class: "hint" }, rich(t("loginHint"))),
    h("input", {
      id: "token",
      type: "password",
      "aria-label": t("token"),
      autocomplete: "current-password",
      placeholder: t("token"),
      value: token,
      onInput: (e: Event) => setToken((e.target as HTMLInputElement).value),
    }),
    h("button", { type: "submit" }, t("login")),
    text && h("div", { class: "error", "data-notice": notice.kind }, rich(text)),
  );
}
