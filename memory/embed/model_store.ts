/**
 * Installed sentence models: `<home>/memory/models/<name>/` holds `model.onnx`, its tokenizer
 * (`tokenizer.json` or `vocab.txt`) and `model.json`, the manifest written last by the install
 * (what was verified, how to pool). A folder appears under its name only whole (staging folder
 * + rename); staging folders a killed install left behind are removed the next time models are
 * installed or loaded.
 * @module
 */
import { catalogModelBySha } from "./model_catalog.ts";
import { join } from "node:path";
import { z } from "zod";
import { checkName, EmbeddingError, errorMessage, type Logger } from "../../core/mod.ts";
import { loadOnnxEmbedder, type OnnxEmbedder } from "./onnx.ts";

/** Model names: a folder name, lower case, as the catalogue spells them. */
export const MODEL_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Return `name` when it is a valid model name; throws NameError saying why not. */
export function checkModelName(name: unknown): string {
  return checkName("model", name, {
    pattern: {
      test: MODEL_NAME,
      expected:
        "1 to 64 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit",
    },
  });
}

const Sha = z.lazy(() => z.string().regex(/^[0-9a-f]{64}$/));

/** `model.json`. */
export const ModelManifest = z.lazy(() =>
  z.object({
    format: z.literal(1),
    name: z.string(),
    description: z.string().optional(),
    pooling: z.enum(["cls", "mean"]),
    prefix: z.string(),
    maxTokens: z.int().min(8).max(8192),
    dim: z.int().positive(),
    model: z.object({ file: z.literal("model.onnx"), size: z.int().positive(), sha256: Sha }),
    tokenizer: z.object({
      file: z.enum(["tokenizer.json", "vocab.txt"]),
      size: z.int().positive(),
      sha256: Sha,
      lowercase: z.boolean().optional(),
    }),
    /** Where it came from: a URL or the local file or folder. */
    source: z.string(),
    installedAt: z.string(),
  })
);

/** A parsed `model.json`. */
export type ModelManifest = z.infer<typeof ModelManifest>;

/** An installed model: its folder and manifest. */
export interface InstalledModel {
  name: string;
  dir: string;
  manifest: ModelManifest;
}

/** Prefix of the folders an install builds in before the rename. */
export const STAGING_PREFIX = ".staging-";

/** The manifest of `<modelsDir>/<name>`; rejects with EmbeddingError "unavailable" when absent. */
export async function readInstalledModel(modelsDir: string, name: string): Promise<InstalledModel> {
  checkModelName(name);
  const dir = join(modelsDir, name);
  let text: string;
  try {
    text = await Deno.readTextFile(join(dir, "model.json"));
  } catch (error) {
    throw new EmbeddingError(
      "onnx",
      "unavailable",
      `Model "${name}" is not installed in "${modelsDir}": install it with ` +
        `\`homeagent memory model install ${name}\``,
      { cause: error },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = ModelManifest.safeParse(json);
  if (!parsed.success || parsed.data.name !== name) {
    throw new EmbeddingError(
      "onnx",
      "failed",
      `Model "${name}" has a broken model.json: install it again`,
    );
  }
  return { name, dir, manifest: parsed.data };
}

/** Every installed model, by name; folders without a readable manifest are skipped (and logged). */
export async function listInstalledModels(
  modelsDir: string,
  logger?: Logger,
): Promise<InstalledModel[]> {
  const out: InstalledModel[] = [];
  for (const entry of await readDirOrEmpty(modelsDir)) {
    if (!entry.isDirectory || !MODEL_NAME.test(entry.name)) continue;
    try {
      out.push(await readInstalledModel(modelsDir, entry.name));
    } catch (error) {
      logger?.warn("Skipping a model folder", { name: entry.name, error: errorMessage(error) });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Options of loadInstalledEmbedder. */
export interface LoadInstalledOptions {
  logger: Logger;
  /** Cap below the model's own limit (`core.agent.embedding_onnx_max_tokens`). */
  maxTokens?: number;
  worker?: boolean;
}

/** Load an installed model as the embedder; its files are checked against the manifest. */
export async function loadInstalledEmbedder(
  modelsDir: string,
  name: string,
  options: LoadInstalledOptions,
): Promise<OnnxEmbedder> {
  await removeStaging(modelsDir, options.logger);
  const { dir, manifest } = await readInstalledModel(modelsDir, name);
  return await loadOnnxEmbedder({
    modelPath: join(dir, manifest.model.file),
    vocabPath: join(dir, manifest.tokenizer.file),
    logger: options.logger,
    name,
    pooling: manifest.pooling,
    prefix: manifest.prefix,
    maxTokens: Math.min(manifest.maxTokens, options.maxTokens ?? manifest.maxTokens),
    lowercase: manifest.tokenizer.lowercase,
    expectedSha256: manifest.model.sha256,
    languages: catalogModelBySha(manifest.model.sha256)?.languages,
    worker: options.worker,
  });
}

/** Remove `<modelsDir>/<name>`: renamed away first, so it vanishes at once. False when absent. */
export async function removeInstalledModel(modelsDir: string, name: string): Promise<boolean> {
  checkModelName(name);
  const dir = join(modelsDir, name);
  const doomed = join(modelsDir, `${STAGING_PREFIX}removed-${name}-${crypto.randomUUID()}`);
  try {
    await Deno.rename(dir, doomed);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  await Deno.remove(doomed, { recursive: true });
  return true;
}

/**
 * Delete staging folders left by installs that are no longer running (their process id is in
 * the name; on systems without /proc, those older than a day).
 */
export async function removeStaging(modelsDir: string, logger?: Logger): Promise<void> {
  for (const entry of await readDirOrEmpty(modelsDir)) {
    if (!entry.isDirectory || !entry.name.startsWith(STAGING_PREFIX)) continue;
    const path = join(modelsDir, entry.name);
    if (await stillInstalling(entry.name, path)) continue;
    await Deno.remove(path, { recursive: true }).catch((error) =>
      logger?.warn("Cannot remove a half-installed model", { path, error: errorMessage(error) })
    );
    logger?.info("Removed a half-installed model", { path });
  }
}

/** The name of a staging folder for `name`, owned by this process. */
export function stagingName(name: string): string {
  return `${STAGING_PREFIX}${name}-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
}

async function stillInstalling(folder: string, path: string): Promise<boolean> {
  const pid = /-(\d+)-[0-9a-f]{8}$/.exec(folder)?.[1];
  if (pid === undefined) return false;
  if (Number(pid) === Deno.pid) return true; // ours: the install cleans up after itself
  try {
    await Deno.stat(`/proc/${pid}`);
    return true;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      const age = Date.now() - ((await Deno.stat(path)).mtime?.getTime() ?? 0);
      return age < 86_400_000;
    }
    return false;
  }
}

async function readDirOrEmpty(dir: string): Promise<Deno.DirEntry[]> {
  try {
    return await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}
