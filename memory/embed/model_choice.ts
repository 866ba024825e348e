/**
 * Which catalogue model `memory model install` takes when no name is given: the one measured
 * best for the language the home speaks (docs/memory.md "Why this default"). No single model
 * we can obtain is good in both Chinese and English: bge-small-zh reaches recall@10 0.733 on
 * MADial zh but its English vectors are weak, e5-small-v2 reaches 0.760 on MADial en and knows
 * no Chinese. The language is read from the home's own memories, else the locale; a home that
 * says neither gets the Chinese model, the best mean over both languages.
 * @module
 */
import { DEFAULT_MODEL } from "./model_catalog.ts";
import { scriptCoverage } from "../text/scripts.ts";

/** The model measured best per language (recall@10 with hybrid recall, MADial-Bench). */
export const MODEL_FOR_LANGUAGE: Readonly<Record<string, string>> = {
  zh: "bge-small-zh-v15-q",
  en: "e5-small-v2-q",
};

/** Texts needed before the memories, rather than the locale, decide the language. */
const ENOUGH_TEXTS = 10;

/** What the choice was based on. */
export interface ModelChoice {
  name: string;
  /** The language the home was found to speak; undefined when nothing said. */
  language?: "zh" | "en";
  /** How it was found, for the command's note: "memories", "locale" or "default". */
  basis: "memories" | "locale" | "default";
}

/**
 * The default model for a home whose memories hold `texts` (a sample) and whose locale is
 * `locale` (LC_ALL / LC_MESSAGES / LANG, e.g. "zh_CN.UTF-8").
 */
export function chooseDefaultModel(texts: readonly string[], locale?: string): ModelChoice {
  if (texts.length >= ENOUGH_TEXTS) {
    // A Chinese text with some English words in it is still Chinese: a Han character counts as
    // a word, so a third of the words in Han means the home talks Chinese.
    const language = scriptCoverage(texts, ["zh"]) >= 1 / 3
      ? "zh"
      : scriptCoverage(texts, ["en"]) >= 1 / 2
      ? "en"
      : undefined;
    return language
      ? { name: MODEL_FOR_LANGUAGE[language]!, language, basis: "memories" }
      : { name: DEFAULT_MODEL, basis: "default" };
  }
  const fromLocale = /^(zh|en)(?:[_.@-]|$)/i.exec(locale ?? "")?.[1]?.toLowerCase();
  if (fromLocale === "zh" || fromLocale === "en") {
    return { name: MODEL_FOR_LANGUAGE[fromLocale]!, language: fromLocale, basis: "locale" };
  }
  return { name: DEFAULT_MODEL, basis: "default" };
}

/** The locale the process runs in, as the C library reads it. */
export function processLocale(env: (name: string) => string | undefined): string | undefined {
  for (const name of ["LC_ALL", "LC_MESSAGES", "LANG"]) {
    const value = env(name);
    if (value) return value;
  }
  return undefined;
}
