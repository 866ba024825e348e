/**
 * The page's views by name. The chat is in the page's own script and draws at once; the other
 * views are a bundle (_other_views.ts, `views.js`) fetched the first time one is opened, so the
 * first load parses only the chat's code.
 */
import { type ComponentType, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { messageOf } from "./_api.ts";
import { ChatView } from "./_chat.ts";
import { t } from "./_i18n.ts";
import { lazy } from "./_lazy.ts";
import type * as Others from "./_other_views.ts";

/** A view fetched on first use; a failed fetch shows its error and is tried again next time. */
function lazyView(load: () => Promise<ComponentType>): ComponentType {
  let view: ComponentType | undefined;
  let loading: Promise<ComponentType> | undefined;
  return function LazyView() {
    const [, setView] = useState<ComponentType | undefined>(view);
    const [error, setError] = useState("");
    useEffect(() => {
      if (view) return;
      loading ??= load().then((loaded) => view = loaded, (e) => {
        loading = undefined;
        throw e;
      });
      loading.then((loaded) => setView(() => loaded), (e) => setError(messageOf(e)));
    }, []);
    if (view) return h(view, null);
    if (error) return h("div", { class: "error", role: "alert" }, error);
    return h("p", { class: "hint", "aria-busy": "true" }, t("loading"));
  };
}

/** The other views' bundle, fetched once; a failed fetch is tried again by the next view. */
const otherViews = lazy<typeof Others>("/assets/views.js");

/** Every view; the keys are the names in the address (`#memory`). */
export const VIEWS = {
  chat: ChatView,
  memory: lazyView(() => otherViews().then((m) => m.MemoryView)),
  knowledge: lazyView(() => otherViews().then((m) => m.KnowledgeView)),
  plugins: lazyView(() => otherViews().then((m) => m.PluginsView)),
  skills: lazyView(() => otherViews().then((m) => m.SkillsView)),
  llm: lazyView(() => otherViews().then((m) => m.LlmView)),
  agents: lazyView(() => otherViews().then((m) => m.AgentsView)),
  settings: lazyView(() => otherViews().then((m) => m.SettingsView)),
  setup: lazyView(() => otherViews().then((m) => m.SetupView)),
} as const;

/** A view's name. */
export type View = keyof typeof VIEWS;
