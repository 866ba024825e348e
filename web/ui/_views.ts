/**
 * The page's views by name. The chat is in the first bundle and draws at once; every other
 * view is a chunk of its own (web/build.ts), fetched the first time it is opened, so the first
 * load parses only the chat's code.
 */
import { type ComponentType, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { messageOf } from "./_api.ts";
import { ChatView } from "./_chat.ts";
import { t } from "./_i18n.ts";

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

/** Every view; the keys are the names in the address (`#memory`). */
export const VIEWS = {
  chat: ChatView,
  memory: lazyView(() => import("./_memory.ts").then((m) => m.MemoryView)),
  knowledge: lazyView(() => import("./_knowledge.ts").then((m) => m.KnowledgeView)),
  plugins: lazyView(() => import("./_plugins.ts").then((m) => m.PluginsView)),
  skills: lazyView(() => import("./_skills.ts").then((m) => m.SkillsView)),
  llm: lazyView(() => import("./_panels.ts").then((m) => m.LlmView)),
  agents: lazyView(() => import("./_panels.ts").then((m) => m.AgentsView)),
  settings: lazyView(() => import("./_settings.ts").then((m) => m.SettingsView)),
  setup: lazyView(() => import("./_setup.ts").then((m) => m.SetupView)),
} as const;

/** A view's name. */
export type View = keyof typeof VIEWS;
