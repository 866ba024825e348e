/**
 * Static word vectors (fastText `.vec`, ConceptNet Numberbatch): a sentence is the mean of
 * its words' unit vectors, IDF-weighted when the analyzer's table has learned a corpus.
 * Several aligned models (same dimension) are averaged word by word. A Chinese word missing
 * from the vocabulary falls back to its characters; what is still unknown is reported.
 * @module
 */
import { basename } from "node:path";
import {
  type Embedder,
  EmbeddingError,
  type EmbedOptions,
  errorMessage,
  type Logger,
  type Modality,
} from "../../core/mod.ts";
import { formatFingerprint, l2Normalize } from "./fingerprint.ts";
import { createTextAnalyzer, type TextAnalyzer } from "../text/keywords.ts";
import { fetchModel, isRemote, type ModelSource, parseModelSource } from "./model_download.ts";
import { readVecFile } from "./_vec_reader.ts";

/** Options of loadStaticEmbedder. */
export interface StaticEmbedderOptions {
  /** Paths or URLs, as a list or the comma-separated `core.agent.embedding_model_path`. */
  sources: string | readonly (string | ModelSource)[];
  /** Where URLs are downloaded to (`<home>/memory/models`); required for URLs. */
  cacheDir?: string;
  logger: Logger;
  /** Words read per model (files are frequency-sorted); default 200,000. */
  maxWords?: number;
  analyzer?: TextAnalyzer;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** How a text's words were found in the vocabulary. */
export interface Coverage {
  tokens: string[];
  /** Words (or their characters) that had a vector. */
  known: string[];
  /** Words with no vector at all: the out-of-vocabulary report. */
  oov: string[];
}

/** A static word-vector space; `coverage` reports what embed could not place. */
export interface StaticEmbedder extends Embedder {
  /** Distinct words loaded. */
  readonly vocabularySize: number;
  /** Which of `text`'s words have vectors. */
  coverage(text: string): Coverage;
}

const VERSION = "v1";

/** Load the configured vector files (downloading configured URLs); rejects with EmbeddingError. */
export async function loadStaticEmbedder(options: StaticEmbedderOptions): Promise<StaticEmbedder> {
  const sources = typeof options.sources === "string"
    ? options.sources.split(",").filter((s) => s.trim() !== "").map(parseModelSource)
    : options.sources.map((s) => typeof s === "string" ? parseModelSource(s) : s);
  if (sources.length === 0) {
    throw new EmbeddingError(
      "static",
      "unavailable",
      "No word-vector model is configured: set core.agent.embedding_model_path to .vec files or URLs",
    );
  }
  const table = new VectorTable();
  const names: string[] = [];
  for (const source of sources) {
    const path = await localPath(source, options);
    const stats = await readVecFile(path, options.maxWords ?? 200_000, (e) => table.add(e))
      .catch((error) => {
        throw new EmbeddingError(
          "static",
          "failed",
          `Cannot read word vectors "${path}": ${errorMessage(error)}`,
          { cause: error },
        );
      });
    if (table.dim !== stats.dim) {
      throw new EmbeddingError(
        "static",
        "failed",
        `Cannot align word vectors: "${path}" has dimension ${stats.dim}, the first model ${table.dim}`,
      );
    }
    table.endModel();
    names.push(modelName(source.location));
    options.logger.info("Loaded word vectors", {
      path,
      words: stats.read,
      skipped: stats.skipped,
      dim: stats.dim,
    });
  }
  table.finish();
  const analyzer = options.analyzer ?? await createTextAnalyzer();
  return createFromTable(table, analyzer, {
    fingerprint: formatFingerprint({
      model: `static/${names.join("+")}`,
      version: VERSION,
      dim: table.dim,
    }),
    logger: options.logger,
  });
}

function createFromTable(
  table: VectorTable,
  analyzer: TextAnalyzer,
  info: { fingerprint: string; logger: Logger },
): StaticEmbedder {
  const coverage = (text: string): Coverage => {
    const tokens = analyzer.tokenize(text);
    const known: string[] = [], oov: string[] = [];
    for (const token of tokens) {
      if (table.has(token)) known.push(token);
      else {
        const chars = [...token].filter((c) => table.has(c));
        if (chars.length > 0 && /\p{Script=Han}/v.test(token)) known.push(...chars);
        else oov.push(token);
      }
    }
    return { tokens, known, oov };
  };
  const embedOne = (text: string) => {
    const { known, oov, tokens } = coverage(text);
    if (oov.length > 0) {
      info.logger.debug("Words without vectors", { oov: oov.slice(0, 20), of: tokens.length });
    }
    const out = new Float32Array(table.dim);
    const weighted = analyzer.idf.documents > 0;
    for (const word of known) table.addInto(out, word, weighted ? analyzer.idf.idf(word, 1) : 1);
    return l2Normalize(out);
  };
  return {
    fingerprint: info.fingerprint,
    dim: table.dim,
    modalities: ["text"] as readonly Modality[],
    vocabularySize: table.size,
    coverage,
    embed(texts: readonly string[], opts: EmbedOptions = {}) {
      opts.signal?.throwIfAborted();
      return Promise.resolve(texts.map(embedOne));
    },
  };
}

async function localPath(source: ModelSource, options: StaticEmbedderOptions): Promise<string> {
  if (isRemote(source.location)) {
    if (!options.cacheDir) {
      throw new EmbeddingError(
        "static",
        "unavailable",
        `Cannot download "${source.location}": no model cache folder`,
      );
    }
    return await fetchModel(source, {
      dir: options.cacheDir,
      logger: options.logger,
      fetch: options.fetch,
      signal: options.signal,
    });
  }
  try {
    await Deno.stat(source.location);
  } catch (error) {
    throw new EmbeddingError(
      "static",
      "unavailable",
      `Word-vector file "${source.location}" is not readable: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  return source.location;
}

/** `cc.zh.300.vec.gz` → `cc.zh.300`; `numberbatch-en-19.08.txt` → `numberbatch-en-19.08`. */
function modelName(location: string): string {
  const name = basename(isRemote(location) ? new URL(location).pathname : location);
  return name.replace(/\.gz$/, "").replace(/\.(vec|txt|bin)$/, "");
}

/** Word → sum of its unit vectors over the models, packed in one growing Float32Array. */
class VectorTable {
  dim = 0;
  #rows = new Map<string, number>();
  #data = new Float32Array(0);
  #seenInModel = new Set<string>();

  get size(): number {
    return this.#rows.size;
  }
  has(word: string): boolean {
    return this.#rows.has(word);
  }
  add(entry: { word: string; vector: Float32Array }): void {
    if (this.dim === 0) this.dim = entry.vector.length;
    if (entry.vector.length !== this.dim || this.#seenInModel.has(entry.word)) return;
    this.#seenInModel.add(entry.word); // first (most frequent) casing of a word wins
    let row = this.#rows.get(entry.word);
    if (row === undefined) {
      row = this.#rows.size;
      this.#rows.set(entry.word, row);
      this.#grow((row + 1) * this.dim);
    }
    const unit = l2Normalize(Float32Array.from(entry.vector));
    for (let i = 0; i < this.dim; i++) this.#data[row * this.dim + i]! += unit[i]!;
  }
  endModel(): void {
    this.#seenInModel.clear();
  }
  finish(): void {
    this.#data = this.#data.slice(0, this.#rows.size * this.dim);
    for (let row = 0; row < this.#rows.size; row++) {
      l2Normalize(this.#data.subarray(row * this.dim, (row + 1) * this.dim));
    }
  }
  addInto(out: Float32Array, word: string, weight: number): void {
    const row = this.#rows.get(word);
    if (row === undefined) return;
    for (let i = 0; i < this.dim; i++) out[i]! += weight * this.#data[row * this.dim + i]!;
  }
  #grow(length: number): void {
    if (length <= this.#data.length) return;
    const next = new Float32Array(Math.max(length, this.#data.length * 2, 1024));
    next.set(this.#data);
    this.#data = next;
  }
}
