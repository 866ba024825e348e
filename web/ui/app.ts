/** The dashboard page: login, chat, memory, knowledge, settings, plugins, LLM sources, residents. */
import { h, render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, authed, messageOf } from "./_api.ts";
import { lang, t, type TextKey, toggleLang, waitText } from "./_i18n.ts";
import { ChatView, connectEvents, kernelState } from "./_chat.ts";
import { MemoryView } from "./_memory.ts";
import { AgentsView, KnowledgeView, LlmView, PluginsView, SettingsView } from "./_panels.ts";
import { SkillsView } from "./_skills.ts";

const VIEWS = {
  chat: ChatView,
  memory: MemoryView,
  knowledge: KnowledgeView,
  settings: SettingsView,
  plugins: PluginsView,
  skills: SkillsView,
  llm: LlmView,
  agents: AgentsView,
} as const;
type View = keyof typeof VIEWS;

/** Text with `command` spans shown as code, as the UI strings write them. */
function rich(text: string) {
  return text.split("`").map((part, i) => i % 2 === 1 ? h("code", { key: i }, part) : part);
}

/** Why the login form is shown: what the server said about a login link or the last try. */
type Notice =
  | { kind: "none" }
  | { kind: "wrong" | "link_wrong" | "cross_site" }
  | { kind: "throttled"; seconds: number };

/** The notice the server put on the page for a failed `/?token=` link, once. */
function noticeFromPage(): Notice {
  const { login, retryAfter } = document.body.dataset;
  if (login === undefined) return { kind: "none" };
  history.replaceState(null, "", "/"); // the failed token leaves the address bar
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

function Login() {
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
      autocomplete: "current-password",
      placeholder: t("token"),
      value: token,
      onInput: (e: Event) => setToken((e.target as HTMLInputElement).value),
    }),
    h("button", { type: "submit" }, t("login")),
    text && h("div", { class: "error", "data-notice": notice.kind }, rich(text)),
  );
}

function viewFromHash(): View {
  const name = location.hash.slice(1);
  return name in VIEWS ? name as View : "chat";
}

function App() {
  const [view, setView] = useState<View>(viewFromHash());
  useEffect(() => {
    const onHash = () => setView(viewFromHash());
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  useEffect(() => {
    if (authed.value === undefined) {
      api("/api/v1/status").then(() => authed.value = true, (e) => {
        if (authed.value === undefined) document.body.dataset.error = messageOf(e);
      });
    }
    if (authed.value !== undefined) document.body.dataset.ready = "1";
    if (authed.value !== true) return;
    const source = connectEvents();
    return () => source.close();
  }, [authed.value]);
  void lang.value; // re-render on language change
  const header = h(
    "header",
    null,
    h("h1", null, t("title")),
    authed.value === true &&
      h(
        "span",
        { id: "state", class: `state ${kernelState.value.state}` },
        t(kernelState.value.state === "busy" ? "busy" : "idle"),
      ),
    h(
      "button",
      { id: "lang", class: "small", onClick: toggleLang },
      lang.value === "zh" ? "EN" : "中文",
    ),
  );
  if (authed.value === undefined) return h("div", null, header);
  if (authed.value === false) return h("div", null, header, h(Login, null));
  return h(
    "div",
    { class: "app" },
    header,
    h(
      "nav",
      { class: "tabs" },
      (Object.keys(VIEWS) as View[]).map((k) =>
        h(
          "a",
          { key: k, href: "#" + k, id: "tab-" + k, class: view === k ? "on" : "" },
          t(k as TextKey),
        )
      ),
    ),
    h("main", null, h(VIEWS[view], null)),
  );
}

document.documentElement.lang = lang.value === "zh" ? "zh-CN" : "en";
render(h(App, null), document.getElementById("root")!);
