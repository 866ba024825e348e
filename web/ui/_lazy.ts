/**
 * The page's later bundles (web/build.ts): the other views, the graph drawing and the Markdown
 * renderer, fetched when first needed, so the first load parses only the page itself.
 */
import { signal } from "@preact/signals";
import type * as Canvas from "./_graph_canvas.ts";
import type * as Markdown from "./_markdown_render.ts";

/** `url`'s module, fetched once; a failed fetch is tried again on the next call. */
export function lazy<T>(url: string): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    // A variable, not a literal, so esbuild leaves the import to the browser.
    loading ??= (import(url) as Promise<T>).catch((error) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

/** The graph drawing (cytoscape). */
export const loadGraphCanvas = lazy<typeof Canvas>("/assets/graph.js");

const loadMarkdownModule = lazy<typeof Markdown>("/assets/markdown.js");

/** The Markdown renderer once it is here; undefined until then (text shows plain). */
export const markdown = signal<typeof Markdown.renderMarkdown | undefined>(undefined);

/** Fetch the Markdown renderer (the page does so at start); every view re-renders with it. */
export function loadMarkdown(): Promise<void> {
  return loadMarkdownModule().then((m) => void (markdown.value = m.renderMarkdown));
}
