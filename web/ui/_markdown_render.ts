/**
 * Markdown to sanitised HTML (marked, then DOMPurify). Built as its own bundle
 * (web/ui/dist/markdown.js): the page starts fetching it at once but does not wait for it.
 */
import { marked } from "marked";
import DOMPurify from "dompurify";

/** Render `text` as Markdown and strip anything active (scripts, handlers, javascript: links). */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: true }) as string;
  return DOMPurify.sanitize(html);
}
