/**
 * The page: login, then the shell (a side bar on wide screens, a strip on phones) around the
 * chat and the dashboard's views. Esc stops a running turn from anywhere on the page.
 */
import { h, render } from "preact";
import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import { api, authed, messageOf } from "./_api.ts";
import { lang, t, type TextKey, toggleLang } from "./_i18n.ts";
import { busy, kernelState, live, stopTurn } from "./_chat_store.ts";
import { connectEvents, questions } from "./_live.ts";
import { Login } from "./_login_form.ts";
import { checkSetup } from "./_setup_check.ts";
import { loadMarkdown } from "./_lazy.ts";
import { takeBoot } from "./_boot.ts";
import { type View, VIEWS } from "./_views.ts";

/** Views reached by a link, not from the menu. */
const UNLISTED: readonly View[] = ["setup"];

function viewFromHash(): View {
  const name = location.hash.slice(1).split("/")[0]!;
  return name in VIEWS ? name as View : "chat";
}

/** The icon (web/ui/favicon.svg) drawn inline: no second request for the header. */
function Logo() {
  return h(
    "svg",
    { viewBox: "0 0 64 64", width: 22, height: 22, "aria-hidden": "true" },
    h("rect", { width: 64, height: 64, rx: 14, fill: "#2563eb" }),
    h("path", { d: "M32 13 11 31h6v19h11V38h8v12h11V31h6z", fill: "#fff" }),
    h("circle", { cx: 32, cy: 29, r: 4, fill: "#2563eb" }),
  );
}

function Header() {
  const state = kernelState.value.state;
  return h(
    "header",
    { class: "top" },
    h("a", { href: "#main", class: "skip" }, t("skipToContent")),
    h("h1", null, h(Logo, null), t("title")),
    authed.value === true && h(
      "span",
      { id: "state", class: `state ${live.value ? state : "offline"}`, role: "status" },
      live.value ? t(state === "busy" ? "busy" : "idle") : t("offline"),
    ),
    h("button", {
      id: "lang",
      class: "small",
      lang: lang.value === "zh" ? "en" : "zh-CN",
      onClick: toggleLang,
    }, lang.value === "zh" ? "English" : "中文"),
  );
}

function Nav({ view }: { view: View }) {
  return h(
    "nav",
    { class: "tabs", "aria-label": t("menu") },
    (Object.keys(VIEWS) as View[]).filter((k) => !UNLISTED.includes(k)).map((k) =>
      h(
        "a",
        {
          key: k,
          href: "#" + k,
          id: "tab-" + k,
          class: view === k ? "on" : "",
          "aria-current": view === k ? "page" : undefined,
        },
        t(k as TextKey),
        k === "chat" && questions.value.length > 0 &&
          h("span", { class: "count", "aria-label": t("questions") }, questions.value.length),
      )
    ),
  );
}

/** Run `fn` when the page is idle (soon in any case; Safari has no requestIdleCallback). */
function whenIdle(fn: () => void): void {
  if ("requestIdleCallback" in globalThis) requestIdleCallback(fn, { timeout: 300 });
  else setTimeout(fn, 50);
}

function useHashView(): View {
  const [view, setView] = useState<View>(viewFromHash());
  useEffect(() => {
    const onHash = () => setView(viewFromHash());
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  return view;
}

function useSession() {
  // Marked in the task that drew the chat (a layout effect runs before that frame is painted),
  // not a frame and a timer later: the input and its handlers are in place from then on.
  useLayoutEffect(() => {
    if (authed.value !== undefined) document.body.dataset.ready = "1";
    // Drawn first, the chat took the history the page came with; else it is stale by the time
    // the chat opens, which then reads the history itself.
    takeBoot("history");
  }, [authed.value]);
  useEffect(() => {
    if (authed.value === undefined) {
      api("/api/v1/status").then(() => authed.value = true, (e) => {
        if (authed.value === undefined) document.body.dataset.error = messageOf(e);
      });
    }
    if (authed.value !== true) return;
    checkSetup();
    // Once the chat takes input: the renderer's own start-up (~25 ms of regular expressions)
    // must not hold the first keystrokes; replies show as plain text until it is here.
    whenIdle(() => loadMarkdown().catch((error) => document.body.dataset.error = messageOf(error)));
    const source = connectEvents();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !e.defaultPrevented && busy()) stopTurn();
    };
    addEventListener("keydown", onKey);
    return () => {
      source.close();
      removeEventListener("keydown", onKey);
    };
  }, [authed.value]);
}

function App() {
  const view = useHashView();
  useSession();
  void lang.value; // re-render on language change
  if (authed.value === undefined) return h("div", { class: "app" }, h(Header, null));
  if (authed.value === false) {
    return h("div", { class: "app" }, h(Header, null), h("main", { id: "main" }, h(Login, null)));
  }
  return h(
    "div",
    { class: `app shell view-${view}` },
    h(Header, null),
    h(Nav, { view }),
    h("main", { id: "main", tabIndex: -1 }, h(VIEWS[view], null)),
  );
}

document.documentElement.lang = lang.value === "zh" ? "zh-CN" : "en";
render(h(App, null), document.getElementById("root")!);
