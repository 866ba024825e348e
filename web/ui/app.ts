/** The dashboard page: login, chat, memory, knowledge, settings, plugins, LLM sources, residents. */
import { h, render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, authed, messageOf } from "./_api.ts";
import { lang, t, type TextKey, toggleLang } from "./_i18n.ts";
import { ChatView, connectEvents, kernelState } from "./_chat.ts";
import { MemoryView } from "./_memory.ts";
import { AgentsView, KnowledgeView, LlmView, PluginsView, SettingsView } from "./_panels.ts";

const VIEWS = {
  chat: ChatView,
  memory: MemoryView,
  knowledge: KnowledgeView,
  settings: SettingsView,
  plugins: PluginsView,
  llm: LlmView,
  agents: AgentsView,
} as const;
type View = keyof typeof VIEWS;

function Login() {
  const [token, setToken] = useState("");
  const [error, setError] = useState("");
  const submit = async (e: Event) => {
    e.preventDefault();
    const response = await fetch("/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    });
    if (response.ok) authed.value = true;
    else setError(response.status === 429 ? t("tooMany") : t("badToken"));
  };
  return h(
    "form",
    { id: "login", class: "login stack", onSubmit: submit },
    h("h2", null, t("loginTitle")),
    h("p", { class: "hint" }, t("loginHint")),
    h("input", {
      id: "token",
      type: "password",
      autocomplete: "current-password",
      placeholder: t("token"),
      value: token,
      onInput: (e: Event) => setToken((e.target as HTMLInputElement).value),
    }),
    h("button", { type: "submit" }, t("login")),
    error && h("div", { class: "error" }, error),
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
