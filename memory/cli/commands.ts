/**
 * The `memory` and `eval memory` commands over a home (DESIGN.md §4, §8): they open the home's
 * stores directly — beside a running daemon or not — and return the report main.ts prints.
 * `memory import` goes into a running daemon's own stores when there is one.
 */
import {
  checkForgetName,
  type Clock,
  type ConfigRegistry,
  HomeAgentError,
  type Logger,
  UsageError,
} from "../../core/mod.ts";
import { openMemory } from "../open.ts";
import { readEmbeddingConfig } from "../embed/config.ts";
import { selectEmbedder } from "../embed/spaces.ts";
import { type MemoryEvalResult, runMemoryEval } from "../eval/run.ts";
import type { HomePaths } from "../home.ts";
import type { MemoryCommandContext } from "./context.ts";
import { openMemoryInspector } from "./inspect.ts";
import { recallSettingsFrom } from "../recall/config.ts";
import { memoryModelCommand, parseModelArgs, socketAnswers } from "./model.ts";
import { createTextAnalyzer } from "../text/keywords.ts";

export type { MemoryCommandContext } from "./context.ts";

/** The actions of `memory`. */
export type MemoryAction = "stats" | "recall" | "export" | "import";

/** Run `memory ACTION [ARGUMENT]`; resolves with the JSON report. */
export async function memoryCommand(
  context: MemoryCommandContext,
  action: MemoryAction,
  argument: string,
): Promise<unknown> {
  if (action === "import") {
    // Into every tier (the context window and knowledge too), as the daemon would.
    await using tiers = await openMemory(context);
    return await tiers.importFile(argument);
  }
  const memory = await openMemoryInspector(context);
  try {
    switch (action) {
      case "stats":
        return await memory.stats();
      case "recall":
        return await memory.recall(argument);
      case "export":
        return await memory.export(argument);
    }
  } finally {
    await memory.close();
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
  try {
    return await runMemoryEval({
      corpusPath: options.corpus,
      questionsPath: options.questions,
      ks: options.ks,
      embedder,
      analyzer,
      clock: context.clock,
      logger: context.logger,
      contextSize: context.config.get<number>("core.agent.max_context_size"),
      recall: recallSettingsFrom(context.config, embedder)(),
      runOut: options.runOut,
      onProgress,
    });
  } finally {
    await embedder.close?.();
  }
}

/** What the `memory` and `eval memory` command lines need from the process. */
export interface MemoryCommandIo {
  /** The home with its config open; disposing closes it. */
  openHome(): Promise<
    { paths: HomePaths; registry: ConfigRegistry; clock: Clock; logger: Logger } & Disposable
  >;
  /** JSON out (stdout). */
  out: { print(line: string): void };
  /** Progress (stderr). */
  err: { print(line: string): void };
  /** How the owner runs the command line, for the usage lines. */
  command: string;
}

/** Run `fn` with the home's config open, closed afterwards. */
async function withHome<T>(
  io: MemoryCommandIo,
  fn: (context: MemoryCommandContext) => Promise<T>,
): Promise<T> {
  using home = await io.openHome();
  return await fn({
    paths: home.paths,
    config: home.registry,
    clock: home.clock,
    logger: home.logger,
  });
}

/** Ways to reach a running daemon's memory; each resolves undefined when none runs. */
export interface MemoryOnline {
  importOnline(path: string): Promise<{ value: unknown } | undefined>;
  forgetOnline(name: string): Promise<{ value: unknown } | undefined>;
}

/**
 * `memory stats | recall QUERY | export DIR|FILE | import DIR|FILE | forget NAME`: prints the JSON
 * report. `import` and `forget` go through a running daemon (its stores and its context window,
 * no second writer) and open the home's files only when none runs. Throws UsageError, and
 * NameError for a name that cannot be forgotten.
 */
export async function runMemoryCommand(
  args: readonly string[],
  io: MemoryCommandIo & MemoryOnline & {
    /** `--from FILE|DIR` of `memory model install`. */
    from?: string;
  },
): Promise<number> {
  const [action, ...rest] = args;
  if (action === "model") return await runModelCommand(rest, io.from, io);
  const argument = rest.join(" ").trim();
  const help = `Usage: ${io.command} memory stats | recall QUERY | export DIR|FILE.jsonl | ` +
    "import DIR|FILE | forget NAME | backup FILE | restore FILE";
  const actions = ["stats", "recall", "export", "import", "forget"];
  if (!actions.includes(action!)) throw new UsageError(help);
  if (action !== "stats" && argument === "") throw new UsageError(help);
  let report: unknown;
  if (action === "forget") report = await forgetCommand(checkForgetName(argument), io);
  else {
    const online = action === "import"
      ? await io.importOnline(await importPath(argument))
      : undefined;
    report = online
      ? online.value
      : await withHome(io, (context) => memoryCommand(context, action as MemoryAction, argument));
  }
  io.out.print(JSON.stringify(report, null, 2));
  return 0;
}

/** The absolute path of what `memory import` reads; one line when it is not there. */
async function importPath(argument: string): Promise<string> {
  try {
    return await Deno.realPath(argument);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new HomeAgentError(
      "not_found",
      `Cannot import "${argument}": there is no such file or folder; give what ` +
        "`memory export` wrote (its folder, or its memory.jsonl)",
    );
  }
}

/** `memory model install [NAME] [--from FILE|DIR] | list | remove NAME`: prints the JSON report. */
async function runModelCommand(
  args: readonly string[],
  from: string | undefined,
  io: MemoryCommandIo,
): Promise<number> {
  const request = parseModelArgs(args, from);
  if (typeof request === "string") throw new UsageError(`Usage: ${io.command} ${request}`);
  const encoder = new TextEncoder();
  // The progress bar redraws its line in place, so it writes without a newline.
  const stderr = {
    write: (text: string) => void Deno.stderr.writeSync(encoder.encode(text)),
    isTerminal: Deno.stderr.isTerminal(),
  };
  const report = await withHome(io, (context) =>
    memoryModelCommand(context, request, {
      stderr,
      daemonRunning: () => socketAnswers(context.paths.socket),
    }));
  io.out.print(JSON.stringify(report, null, 2));
  return 0;
}

/** Forget through the running daemon, else in the home's own files (every tier opened). */
async function forgetCommand(name: string, io: MemoryCommandIo & MemoryOnline): Promise<unknown> {
  const online = await io.forgetOnline(name);
  if (online) return online.value;
  return await withHome(io, async (context) => {
    await using memory = await openMemory(context);
    return await memory.forget.forget(name);
  });
}

/** Flags of `eval memory`. */
export interface EvalFlags {
  corpus?: string;
  questions?: string;
  k?: string;
  "run-out"?: string;
}

/** `eval memory --corpus F --questions F [--k 5,10] [--run-out F]`, DESIGN.md §8. */
export async function runEvalCommand(
  args: readonly string[],
  flags: EvalFlags,
  io: MemoryCommandIo,
): Promise<number> {
  const { corpus, questions } = flags;
  if (args[0] !== "memory" || !corpus || !questions) {
    throw new UsageError(
      `Usage: ${io.command} eval memory --corpus F --questions F [--k 5,10] [--run-out F]`,
    );
  }
  const ks = (flags.k ?? "5,10").split(",").map((k) => Number(k.trim()));
  if (ks.some((k) => !Number.isInteger(k) || k < 1)) {
    throw new UsageError(`Invalid --k "${flags.k}": expected positive integers like 5,10`);
  }
  const options = { corpus, questions, ks, runOut: flags["run-out"] };
  const result = await withHome(
    io,
    (context) => evalMemoryCommand(context, options, (message) => io.err.print(message)),
  );
  io.out.print(JSON.stringify(result, null, 2));
  return 0;
}
