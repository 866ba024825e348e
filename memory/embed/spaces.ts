/**
 * Builds the configured vector space (`core.agent.embedding`) and, for the daemon, the
 * degradation chain: configured layer → hash (no download) → TF-IDF. Every layer that cannot
 * serve is reported as an EmbeddingError; none is ever replaced silently.
 * @module
 */
import { join } from "node:path";
import { type Embedder, EmbeddingError, errorMessage, type Logger } from "../../core/mod.ts";
import type { EmbeddingConfig, EmbeddingKind } from "./config.ts";
import { createHashEmbedder } from "./hash.ts";
import { createHttpEmbedder } from "./http.ts";
import type { TextAnalyzer } from "../text/keywords.ts";
import { loadOnnxEmbedder } from "./onnx.ts";
import { loadInstalledEmbedder } from "./model_store.ts";
import { loadStaticEmbedder } from "./static_vectors.ts";
import { createTfIdfSpace } from "./tfidf.ts";

/** Collaborators of createEmbedder. */
export interface EmbedderDeps {
  logger: Logger;
  /** The home's `memory/` folder; downloads go to its `models/`. Required for model URLs. */
  memoryDir?: string;
  /** Shared analyzer (its IDF weights static vectors); built on demand otherwise. */
  analyzer?: TextAnalyzer;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** What selectEmbedder settled on, and why the layers before it were passed over. */
export interface EmbedderSelection {
  embedder: Embedder;
  kind: EmbeddingKind;
  /** One error per layer that could not serve, in the order tried. */
  failures: EmbeddingError[];
}

/**
 * Build the configured space. Rejects with EmbeddingError saying which setting or file is
 * missing ("unavailable") or what went wrong ("failed"); a probe embed checks it works.
 */
export async function createEmbedder(
  config: EmbeddingConfig,
  deps: EmbedderDeps,
): Promise<Embedder> {
  const embedder = await build(config.kind, config, deps).catch((error) => {
    if (error instanceof EmbeddingError) throw error;
    throw new EmbeddingError(
      config.kind,
      "failed",
      `Cannot build the "${config.kind}" embedder: ${errorMessage(error)}`,
      { cause: error },
    );
  });
  // ASCII on purpose: a Han probe would make jieba build its dictionary (~0.5 s) before the
  // daemon's socket opens or a CLI command answers; the first Chinese text pays it instead.
  const [probe] = await embedder.embed(["embedding self-test"], { signal: deps.signal });
  if (probe?.length !== embedder.dim) {
    throw new EmbeddingError(
      config.kind,
      "failed",
      `The "${config.kind}" embedder returned a vector of the wrong length`,
    );
  }
  return embedder;
}

/**
 * The configured space, else hash, else TF-IDF; each failure is logged at error level with
 * its reason and returned in `failures`. Rejects only when the signal aborts.
 */
export async function selectEmbedder(
  config: EmbeddingConfig,
  deps: EmbedderDeps,
): Promise<EmbedderSelection> {
  const chain = [...new Set<EmbeddingKind>([config.kind, "hash", "tfidf"])];
  const failures: EmbeddingError[] = [];
  for (const kind of chain) {
    try {
      const embedder = await createEmbedder({ ...config, kind }, deps);
      deps.logger.info("Embedder ready", { kind, fingerprint: embedder.fingerprint });
      return { embedder, kind, failures };
    } catch (error) {
      deps.signal?.throwIfAborted();
      if (!(error instanceof EmbeddingError)) throw error;
      failures.push(error);
      deps.logger.error("Embedder unavailable; trying the next layer", {
        kind,
        error: error.message,
      });
    }
  }
  throw new AggregateError(failures, "No embedder could be built"); // unreachable: tfidf needs nothing
}

function build(
  kind: EmbeddingKind,
  config: EmbeddingConfig,
  deps: EmbedderDeps,
): Promise<Embedder> {
  switch (kind) {
    case "hash":
      return Promise.resolve(createHashEmbedder({ dim: config.dim, analyzer: deps.analyzer }));
    case "tfidf":
      return Promise.resolve(createTfIdfSpace({ dim: config.dim }));
    case "static":
      return loadStaticEmbedder({
        sources: config.modelPath,
        cacheDir: deps.memoryDir ? join(deps.memoryDir, "models") : undefined,
        logger: deps.logger,
        maxWords: config.maxWords,
        analyzer: deps.analyzer,
        fetch: deps.fetch,
        signal: deps.signal,
      });
    case "onnx":
      if (config.onnxName !== "") {
        if (!deps.memoryDir) return Promise.reject(noModelsDir(config.onnxName));
        return loadInstalledEmbedder(join(deps.memoryDir, "models"), config.onnxName, {
          logger: deps.logger,
          maxTokens: config.onnxMaxTokens,
          worker: config.onnxWorker,
        });
      }
      return loadOnnxEmbedder({
        modelPath: config.onnxModel,
        vocabPath: config.onnxVocab,
        logger: deps.logger,
        maxTokens: config.onnxMaxTokens,
        lowercase: config.onnxLowercase,
        worker: config.onnxWorker,
      });
    case "http":
      return createHttpEmbedder({
        baseUrl: config.httpBaseUrl,
        model: config.httpModel,
        apiKey: config.httpApiKey,
        dim: config.httpDim,
        batchSize: config.httpBatchSize,
        timeoutMs: config.httpTimeoutMs,
        logger: deps.logger,
        fetch: deps.fetch,
      });
    default:
      return Promise.reject(
        new EmbeddingError(
          String(kind),
          "unavailable",
          `Unknown embedder "${kind}": expected hash, static, onnx, http or tfidf`,
        ),
      );
  }
}

function noModelsDir(name: string): EmbeddingError {
  return new EmbeddingError(
    "onnx",
    "unavailable",
    `Cannot load model "${name}": no home folder given`,
  );
}
