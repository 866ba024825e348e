/**
 * A sample of what a home's memory holds, read without repairing anything: the words the
 * default model choice (embed/model_choice.ts) reads the home's language from.
 */
import { type Logger, textForVector } from "../../core/mod.ts";
import { sampleDocContents } from "../docs/sample.ts";
import type { HomePaths } from "../home.ts";
import { readContextEvents } from "./inspect.ts";

/** Documents read at most: enough to tell a language, cheap on a home of years. */
const DOCS_SAMPLED = 200;

/** The context window's texts and up to 200 documents' contents; empty for a new home. */
export async function homeTexts(paths: HomePaths, logger: Logger): Promise<string[]> {
  const texts = (await readContextEvents(paths.context)).map(textForVector);
  texts.push(...await sampleDocContents(paths.docs, DOCS_SAMPLED, logger));
  return texts.filter((t) => t.trim() !== "");
}
