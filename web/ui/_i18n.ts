/**
 * UI text in English and Chinese from one catalogue (`_text*.ts`: every key carries both
 * languages, so neither can be missing); the language follows navigator.language until toggled.
 * Times and numbers follow the browser's own locale, the owner's.
 */
import { signal } from "@preact/signals";
import { TEXT } from "./_text.ts";
import { VIEW_TEXT } from "./_text_views.ts";
import { MEMORY_TEXT } from "./_text_memory.ts";
import { PLUGIN_TEXT } from "./_text_plugins.ts";

const CATALOGUE = { ...TEXT, ...VIEW_TEXT, ...MEMORY_TEXT, ...PLUGIN_TEXT };

/** The text keys. */
export type TextKey = keyof typeof CATALOGUE;

/** "en" or "zh". */
export const lang = signal<"en" | "zh">(
  (localStorage.getItem("homeagent.lang") ?? navigator.language).toLowerCase().startsWith("zh")
    ? "zh"
    : "en",
);

/** Switch language and remember the choice. */
export function toggleLang(): void {
  lang.value = lang.value === "zh" ? "en" : "zh";
  localStorage.setItem("homeagent.lang", lang.value);
  document.documentElement.lang = lang.value === "zh" ? "zh-CN" : "en";
}

const index = () => lang.value === "zh" ? 1 : 0;

/** The text of `key` in the current language, with each `{name}` replaced from `vars`. */
export function t(key: TextKey, vars: Record<string, string | number> = {}): string {
  const text = CATALOGUE[key][index()];
  return text.replace(/\{(\w+)\}/g, (all, name: string) => String(vars[name] ?? all));
}

/** The text of `key` if the catalogue has it (names that come from the server: states, …). */
export function tMaybe(key: string, fallback = key): string {
  const pair = (CATALOGUE as Record<string, readonly [string, string]>)[key];
  return pair ? pair[index()] : fallback;
}

/** A wait in words: "10 minutes", "1 minute", "45 seconds" (in the current language). */
export function waitText(seconds: number): string {
  if (seconds < 60) return t("seconds", { n: seconds });
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? t("minute") : t("minutes", { n: minutes });
}

/**
 * A formatter made on first use. The first Intl formatter of a page loads the locale's data,
 * tens of milliseconds on a slow machine: the chat takes input before any time is shown.
 */
function lazyFormat<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => made ??= make();
}

const timeFormat = lazyFormat(() =>
  new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" })
);
const dayFormat = lazyFormat(() => new Intl.DateTimeFormat(undefined, { dateStyle: "medium" }));
const stampFormat = lazyFormat(() =>
  new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })
);
const numberFormat = lazyFormat(() => new Intl.NumberFormat());

/** Clock time in the owner's locale. */
export function timeOf(ms: number): string {
  return timeFormat().format(ms);
}

/** A day in the owner's locale. */
export function dayOf(ms: number): string {
  return dayFormat().format(ms);
}

/** Date and time in the owner's locale. */
export function stampOf(ms: number): string {
  return stampFormat().format(ms);
}

/** A number with the owner's digit grouping. */
export function num(n: number): string {
  return numberFormat().format(n);
}
