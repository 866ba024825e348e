/**
 * `memory model install [NAME] [--from FILE|DIR] | list | remove NAME` (DESIGN.md §4): the
 * semantic model of the primary vector space. An install switches the space in the home's
 * configuration; a running daemon keeps its space until it restarts (each tier holds its vectors
 * in one space, and the restart's background re-embedding moves them all together).
 */
import { join } from "node:path";
import { HomeAgentError } from "../../core/mod.ts";
import { type CatalogModel, DEFAULT_MODEL, MODEL_CATALOG } from "../embed/model_catalog.ts";
import { installModel, type InstallProgress } from "../embed/model_install.ts";
import { chooseDefaultModel, MODEL_FOR_LANGUAGE, processLocale } from "../embed/model_choice.ts";
import { homeTexts } from "./_home_texts.ts";
import { checkModelName, listInstalledModels, removeInstalledModel } from "../embed/model_store.ts";
import type { MemoryCommandContext } from "./context.ts";
import { createProgressBar, type ProgressBar, type ProgressSink } from "./_progress.ts";

/** The actions of `memory model`. */
export type ModelAction = "install" | "list" | "remove";

/** What `memory model` was asked. */
export interface ModelRequest {
  action: ModelAction;
  name?: string;
  from?: string;
}

/** The command's surroundings. */
export interface ModelCommandIo {
  /** Progress and notes (stderr). */
  stderr: ProgressSink;
  /** True when a daemon serves this home (its socket answers). */
  daemonRunning: () => Promise<boolean>;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** The environment the locale is read from; default the process's. */
  env?: (name: string) => string | undefined;
  /** Every step of an install (the web's progress stream). */
  onProgress?: (progress: InstallProgress) => void;
  /** The models known by name; default MODEL_CATALOG (tests point it at a loopback server). */
  catalog?: readonly CatalogModel[];
}

/** The usage line of `memory model`. */
export const MODEL_USAGE = "memory model install [NAME] [--from FILE|DIR] | list | remove NAME";

/** Read `memory model` arguments; a string is the usage error to print. */
export function parseModelArgs(args: readonly string[], from?: string): ModelRequest | string {
  const [action, name, ...extra] = args;
  const actions: ModelAction[] = ["install", "list", "remove"];
  if (!actions.includes(action as ModelAction) || extra.length > 0) return MODEL_USAGE;
  if (action === "remove" && !name) return MODEL_USAGE;
  if (action === "list" && name !== undefined) return MODEL_USAGE;
  if (action !== "install" && from !== undefined) return "--from goes with install";
  return { action: action as ModelAction, name, from };
}

/** True when something answers on the daemon socket `path`. */
export async function socketAnswers(path: string): Promise<boolean> {
  try {
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
    return true;
  } catch {
    return false;
  }
}

const KIND = "core.agent.embedding";
const NAME = "core.agent.embedding_onnx_name";

/** Run `memory model …`; resolves with the JSON report. */
export async function memoryModelCommand(
  context: MemoryCommandContext,
  request: ModelRequest,
  io: ModelCommandIo,
): Promise<unknown> {
  const modelsDir = join(context.paths.memory, "models");
  switch (request.action) {
    case "list":
      return await listModels(context, modelsDir, io.catalog);
    case "remove":
      return await removeModel(context, modelsDir, request.name, io);
    case "install":
      return await install(context, modelsDir, request, io);
  }
}

async function install(
  context: MemoryCommandContext,
  modelsDir: string,
  request: ModelRequest,
  io: ModelCommandIo,
): Promise<unknown> {
  const bars = new Map<string, ProgressBar>();
  const onProgress = (p: InstallProgress) => {
    io.onProgress?.(p);
    if (p.phase !== "download") return;
    if (!bars.has(p.file)) bars.set(p.file, createProgressBar(p.file.padEnd(9), io.stderr));
    bars.get(p.file)!.update(p.bytes, p.total);
    if (p.bytes === p.total) bars.get(p.file)!.done();
  };
  const result = await installModel({
    modelsDir,
    name: request.name ?? (request.from ? undefined : await defaultFor(context, io)),
    from: request.from,
    logger: context.logger,
    fetch: io.fetch,
    signal: io.signal,
    onProgress,
    catalog: io.catalog,
  });
  context.config.set(KIND, "onnx");
  context.config.set(NAME, result.name);
  const running = await io.daemonRunning();
  const { manifest } = result;
  io.stderr.write(
    `Installed model "${result.name}" (${manifest.dim} dimensions, ` +
      `${(manifest.model.size / 2 ** 20).toFixed(1)} MiB); it is now the memory's vector space.\n` +
      (running
        ? "A daemon is running for this home: restart it to switch; memories are then " +
          "re-embedded in the background while it serves.\n"
        : "The daemon uses it from its next start and re-embeds memories in the background.\n"),
  );
  return {
    installed: result.name,
    dir: result.dir,
    dim: manifest.dim,
    pooling: manifest.pooling,
    sizeBytes: manifest.model.size,
    sha256: manifest.model.sha256,
    source: manifest.source,
    replaced: result.replaced,
    active: true,
    daemonRunning: running,
    restartNeeded: running,
  };
}

/** The model for the home's language, said on stderr with what it was read from. */
async function defaultFor(context: MemoryCommandContext, io: ModelCommandIo): Promise<string> {
  const texts = await homeTexts(context.paths, context.logger);
  const choice = chooseDefaultModel(texts, processLocale(io.env ?? ((n) => Deno.env.get(n))));
  const others = Object.entries(MODEL_FOR_LANGUAGE).filter(([, name]) => name !== choice.name)
    .map(([language, name]) => `${name} for ${language === "zh" ? "Chinese" : "English"}`);
  const why = choice.basis === "memories"
    ? `this home's memories are mostly ${choice.language === "zh" ? "Chinese" : "English"}`
    : choice.basis === "locale"
    ? `the locale is ${choice.language === "zh" ? "Chinese" : "English"}`
    : "neither the memories nor the locale name a language";
  io.stderr.write(
    `Choosing ${choice.name}: ${why}. For another language name the model ` +
      `(homeagent memory model install NAME): ${others.join(", ")}.\n`,
  );
  return choice.name;
}

async function listModels(
  context: MemoryCommandContext,
  modelsDir: string,
  catalog: readonly CatalogModel[] = MODEL_CATALOG,
) {
  const installed = await listInstalledModels(modelsDir, context.logger);
  const kind = context.config.get<string>(KIND);
  const activeName = kind === "onnx" ? context.config.get<string>(NAME) : "";
  return {
    space: kind === "onnx" && activeName ? `onnx (${activeName})` : kind,
    installed: installed.map(({ name, dir, manifest }) => ({
      name,
      dir,
      dim: manifest.dim,
      pooling: manifest.pooling,
      sizeBytes: manifest.model.size,
      sha256: manifest.model.sha256,
      source: manifest.source,
      installedAt: manifest.installedAt,
      active: name === activeName,
    })),
    available: catalog.map((m) => ({
      name: m.name,
      description: m.description,
      languages: m.languages,
      dim: m.dim,
      downloadBytes: m.model.size + m.tokenizer.size,
      default: m.name === DEFAULT_MODEL,
      // What a nameless install takes for a home in that language (embed/model_choice.ts).
      defaultFor: Object.keys(MODEL_FOR_LANGUAGE).filter((l) => MODEL_FOR_LANGUAGE[l] === m.name),
      installed: installed.some((i) => i.name === m.name),
    })),
  };
}

async function removeModel(
  context: MemoryCommandContext,
  modelsDir: string,
  name: string | undefined,
  io: ModelCommandIo,
) {
  checkModelName(name);
  if (!await removeInstalledModel(modelsDir, name!)) {
    throw new HomeAgentError("model_not_installed", `Model "${name}" is not installed`);
  }
  const wasActive = context.config.get<string>(KIND) === "onnx" &&
    context.config.get<string>(NAME) === name;
  if (wasActive) {
    context.config.set(KIND, "hash");
    context.config.set(NAME, "");
    io.stderr.write(
      `Model "${name}" was the vector space; it is now "hash" (keywords and characters). ` +
        ((await io.daemonRunning()) ? "Restart the daemon to apply.\n" : "\n"),
    );
  }
  return { removed: name, wasActive };
}

/** The semantic model as the page's setup shows it: what is installed, and installing one. */
export interface ModelSetup {
  /** As `memory model list`: the space, the installed models, the catalogue. */
  status(): Promise<unknown>;
  /** As `memory model install`; the result says a restart switches the running daemon. */
  install(
    request: { name?: string; from?: string },
    options: { onProgress?: (progress: InstallProgress) => void; signal?: AbortSignal },
  ): Promise<unknown>;
}

/** `memory model list|install` for the daemon's web page (the daemon is the one running). */
export function modelSetup(
  context: MemoryCommandContext,
  options: { fetch?: typeof fetch; catalog?: readonly CatalogModel[] } = {},
): ModelSetup {
  const io = (more: Partial<ModelCommandIo> = {}): ModelCommandIo => ({
    stderr: { write: () => {}, isTerminal: false },
    daemonRunning: () => Promise.resolve(true),
    ...options,
    ...more,
  });
  return {
    status: () => memoryModelCommand(context, { action: "list" }, io()),
    install: (request, call) =>
      memoryModelCommand(context, { action: "install", ...request }, io(call)),
  };
}
