/**
 * ONNX sentence models (BERT-like: input_ids, attention_mask, optional token_type_ids) run by
 * onnxruntime-web's wasm backend from local files: the model's own WordPiece tokenizer
 * (`tokenizer.json` or `vocab.txt`), [CLS] or mean pooling as the model requires (or its own
 * `sentence_embedding`), L2-normalised; in a Worker, behind a queue that serves the owner first.
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
import {
  type Backend,
  startInlineBackend,
  startWorkerBackend,
  WorkerStartError,
} from "./_onnx_backend.ts";
import { type Engine, type RunnerSpec, specTokenizer } from "./_onnx_runner.ts";
import { EmbedQueue } from "./_embed_queue.ts";
import { formatFingerprint } from "./fingerprint.ts";
import { guessPooling, type Pooling } from "./model_catalog.ts";

// The media tier's image encoder runs in the same onnxruntime as the text model.
export { loadOrt, type Ort } from "./_onnx_runner.ts";

/** Options of loadOnnxEmbedder. */
export interface OnnxEmbedderOptions {
  /** The `.onnx` file. */
  modelPath: string;
  /** The model's `tokenizer.json` (by its `.json` ending) or WordPiece `vocab.txt`. */
  vocabPath: string;
  logger: Logger;
  /** Name in the fingerprint; default the model file's name without `.onnx`. */
  name?: string;
  /** Default: by the name's model family (BGE: cls, others: mean). */
  pooling?: Pooling;
  /** Put before every text (e5: "query: "); default none. */
  prefix?: string;
  /** Tokens per text including [CLS] and [SEP]; default 512. */
  maxTokens?: number;
  /** Lower-case input for a `vocab.txt` (a `tokenizer.json` says itself); default true. */
  lowercase?: boolean;
  /** Languages the model was trained for (its catalogue entry); default not declared. */
  languages?: readonly string[];
  /** Texts per session run; default 16. */
  batchSize?: number;
  /** Refuse the model file unless its SHA-256 is this (an installed model's manifest). */
  expectedSha256?: string;
  /** Run the model in a Worker; default true (inline when a Worker cannot start). */
  worker?: boolean;
  /** Vectors kept by text; default 4096. */
  cacheSize?: number;
  /** The worker module (tests); default the one beside this file. */
  workerUrl?: string;
  /** Which onnxruntime; default "auto": native where it loads, else wasm (_onnx_runner.ts). */
  engine?: Engine | "auto";
}

/** An ONNX embedder; `close()` releases the model. */
export interface OnnxEmbedder extends Embedder {
  /** Where the model runs. */
  readonly where: "worker" | "inline";
  /** Which onnxruntime runs it. */
  readonly engine: Engine;
  /** Release the model (and its Worker); embed() rejects afterwards. */
  close(): Promise<void>;
}

/** Load a model and its tokenizer; rejects with EmbeddingError naming the file and the cause. */
export async function loadOnnxEmbedder(options: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
  const { modelPath, vocabPath } = options;
  if (!modelPath || !vocabPath) {
    throw new EmbeddingError(
      "onnx",
      "unavailable",
      "No ONNX model is configured: install one with `homeagent memory model install`, or set " +
        "core.agent.embedding_onnx_model and core.agent.embedding_onnx_vocab",
    );
  }
  const failed = (why: string, cause?: unknown) =>
    new EmbeddingError("onnx", "failed", `Cannot use ONNX model "${modelPath}": ${why}`, { cause });
  const name = options.name ?? basename(modelPath).replace(/\.onnx$/, "");
  const pooling = options.pooling ?? guessPooling(name);
  const readSpec = () => readRunnerSpec(options, pooling);
  const first = await readSpec();
  const { createHash } = await import("node:crypto"); // loaded by the first hash, not at start
  const sha256 = createHash("sha256").update(first.model).digest("hex");
  if (options.expectedSha256 && sha256 !== options.expectedSha256) {
    throw failed(
      `its sha256 ${sha256} differs from the installed ${options.expectedSha256} ` +
        `(damaged? install it again with \`homeagent memory model install ${name}\`)`,
    );
  }
  try {
    specTokenizer(first.tokenizer); // a clear error before any model is loaded
  } catch (error) {
    throw failed(`tokenizer "${vocabPath}": ${errorMessage(error)}`, error);
  }
  const backend = await startBackend(first, readSpec, options).catch((error) => {
    throw error instanceof EmbeddingError ? error : failed(errorMessage(error), error);
  });
  const queue = new EmbedQueue({ run: (t) => backend.run(t), inline: backend.where === "inline" }, {
    cacheSize: options.cacheSize,
  });
  const dim = backend.dim;
  options.logger.info("Loaded ONNX embedder", {
    modelPath,
    name,
    dim,
    pooling,
    where: backend.where,
    engine: backend.engine,
    ...backend.fallback ? { nativeUnavailable: backend.fallback } : {},
  });
  let closed = false;
  return {
    // v2: the tokenizer follows tokenizer.json exactly and pooling follows the model.
    fingerprint: formatFingerprint({
      model: `onnx/${name}@${sha256.slice(0, 12)}`,
      version: `v2-${pooling}${first.prefix ? "-prefixed" : ""}`,
      dim,
    }),
    dim,
    languages: options.languages,
    modalities: ["text"] as readonly Modality[],
    where: backend.where,
    engine: backend.engine,
    async embed(texts: readonly string[], opts: EmbedOptions = {}) {
      if (closed) throw failed("it is closed");
      try {
        return await queue.embed(texts, opts);
      } catch (error) {
        if (opts.signal?.aborted && error === opts.signal.reason) throw error;
        throw error instanceof EmbeddingError ? error : failed(errorMessage(error), error);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      queue.close(failed("it is closed"));
      await backend.close();
    },
  };
}

async function readRunnerSpec(options: OnnxEmbedderOptions, pooling: Pooling): Promise<RunnerSpec> {
  const read = async <T>(path: string, fn: (p: string) => Promise<T>) => {
    try {
      return await fn(path);
    } catch (error) {
      throw new EmbeddingError(
        "onnx",
        "unavailable",
        `Cannot read "${path}": ${errorMessage(error)}`,
        { cause: error },
      );
    }
  };
  const model = await read(options.modelPath, Deno.readFile);
  const text = await read(options.vocabPath, Deno.readTextFile);
  return {
    model,
    tokenizer: {
      format: options.vocabPath.endsWith(".json") ? "json" : "vocab",
      text,
      lowercase: options.lowercase,
    },
    pooling,
    prefix: options.prefix ?? "",
    maxTokens: options.maxTokens ?? 512,
    batchSize: options.batchSize ?? 16,
    engine: options.engine,
  };
}

/** A Worker unless asked not to; inline when the worker module cannot start (a bundle). */
async function startBackend(
  first: RunnerSpec,
  readSpec: () => Promise<RunnerSpec>,
  options: OnnxEmbedderOptions,
): Promise<Backend> {
  if (options.worker === false) return await startInlineBackend(first);
  let spec: RunnerSpec | undefined = first;
  try {
    return await startWorkerBackend(() => {
      const next = spec ?? readSpec();
      spec = undefined; // its bytes went to the worker; a restart reads the files again
      return Promise.resolve(next);
    }, options.workerUrl);
  } catch (error) {
    if (!(error instanceof WorkerStartError)) throw error;
    options.logger.warn("Embedding worker cannot start; running the model on the main thread", {
      error: error.message,
    });
    return await startInlineBackend(await readSpec());
  }
}
