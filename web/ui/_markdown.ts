/** Markdown in the page: rendered and sanitised once the renderer is here, plain text before. */
import { h } from "preact";
import { markdown } from "./_lazy.ts";

/** `text` as Markdown in a `div` of class `cls`. */
export function Markdown({ text, cls }: { text: string; cls: string }) {
  const render = markdown.value;
  if (!render) return h("div", { class: `${cls} plain` }, text);
  return h("div", { class: cls, dangerouslySetInnerHTML: { __html: render(text) } });
}
