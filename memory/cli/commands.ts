/**
 * The `memory` and `eval memory` commands over a home (DESIGN.md §4, §8): they open the home's
 * stores directly — beside a running daemon or not — and return the report main.ts prints.
 */
import type { Clock, ConfigRegistry, Logger } from "../../core/mod.ts";
import { readEmbeddingConfig } from "../embed/config.ts";
import { selectEmbedder } from "../embed/spaces.ts";
import { type MemoryEvalResult, runMemoryEval } from "../eval/run.ts";
import type { HomePaths } from "../home.ts";
import { openMemoryInspector } from "./inspect.ts";
import { createTextAnalyzer } from "../text/keywords.ts";

/** What every memory command needs. */
export interface MemoryCommandContext {
  paths: HomePaths;
  config: ConfigRegistry;
  clock: Clock;
  logger: Logger;
}

/** The actions of `memory`. */
export type MemoryAction = "stats" | "recall" | "export" | "import";

/** Run `memory ACTION [ARGUMENT]`; resolves with the JSON report. */
export async function memoryCommand(
  context: MemoryCommandContext,
  action: MemoryAction,
  argument: string,
): Promise<unknown> {
  const memory = await openMemoryInspector(context);
  try {
    switch (action) {
      case "stats":
        return await memory.stats();
      case "recall":
        return await memory.recall(argument);
      case "export":
        return await memory.export(argument);
      case "import":
        return await memory.import(argument);
    }
  } finally {
    memory.close();
  }
}

/** Run `eval memory` with the home's vector space and context size. */
export async function evalMemoryCommand(
  context: MemoryCommandContext,
  options: { corpus: string; questions: string; ks: number[]; runOut?: string },
  onProgress: (message: string) => void,
): Promise<MemoryEvalResult> {
  const analyzer = await createTextAnalyzer();
  const { embedder } = await selectEmbedder(readEmbeddingConfig(context.config), {
    logger: context.logger,
    memoryDir: context.paths.memory,
    analyzer,
  });
  return await runMemoryEval({
    corpusPath: options.corpus,
    questionsPath: options.questions,
    ks: options.ks,
    embedder,
    analyzer,
    clock: context.clock,
    logger: context.logger,
    contextSize: context.config.get<number>("core.agent.max_context_size"),
    runOut: options.runOut,
    onProgress,
  });
}
