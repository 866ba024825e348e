/**
 * The memory view: the knowledge graph, the documents and the context window, one tab each
 * (the tab is in the address: `#memory/documents`), with the vector space it recalls in.
 */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { t } from "./_i18n.ts";
import { GraphTab } from "./_memory_graph.ts";
import { ContextTab, DocumentsTab } from "./_memory_talk.ts";
import { UndoToast } from "./_undo.ts";
import { SpaceLine } from "./_space.ts";

const TABS = ["graph", "documents", "context"] as const;
type Tab = typeof TABS[number];

function tabFromHash(): Tab {
  const name = location.hash.split("/")[1] ?? "";
  return (TABS as readonly string[]).includes(name) ? name as Tab : "graph";
}

/** The memory view with its three tabs. */
export function MemoryView() {
  const [tab, setTab] = useState<Tab>(tabFromHash());
  useEffect(() => {
    const onHash = () => setTab(tabFromHash());
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  return h(
    "section",
    { class: "memory" },
    h(SpaceLine, null),
    h(
      "nav",
      { class: "subtabs", "aria-label": t("memory") },
      TABS.map((k) =>
        h("a", {
          key: k,
          href: `#memory/${k}`,
          id: `memory-${k}`,
          class: tab === k ? "button on" : "button",
          "aria-current": tab === k ? "page" : undefined,
        }, t(k))
      ),
    ),
    tab === "graph"
      ? h(GraphTab, null)
      : tab === "documents"
      ? h(DocumentsTab, null)
      : h(ContextTab, null),
    h(UndoToast, null),
  );
}
