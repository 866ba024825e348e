/**
 * ONNX sentence models (BERT-like: input_ids, attention_mask, optional token_type_ids) run by
 * onnxruntime-web's wasm backend from local files: WordPiece tokens in, mean pooling over the
 * attention mask out (or the model's own `sentence_embedding`), L2-normalised.
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
import { sha256File } from "./model_download.ts";
import { WordPieceTokenizer } from "./wordpiece.ts";

/** The onnxruntime-web wasm module. */
export type Ort = typeof import("onnxruntime-web/wasm");
type Session = Awaited<ReturnType<Ort["InferenceSession"]["create"]>>;
type Tensor = InstanceType<Ort["Tensor"]>;

/** Options of loadOnnxEmbedder. */
export interface OnnxEmbedderOptions {
  /** The `.onnx` file (`core.agent.embedding_onnx_model`). */
  modelPath: string;
  /** The WordPiece `vocab.txt` (`core.agent.embedding_onnx_vocab`). */
  vocabPath: string;
  logger: Logger;
  /** Tokens per text including [CLS] and [SEP]; default 256. */
  maxTokens?: number;
  /** Lower-case input (uncased models); default true. */
  lowercase?: boolean;
  /** Texts per session run; default 16. */
  batchSize?: number;
}

/** An ONNX embedder; `close()` releases the session. */
export interface OnnxEmbedder extends Embedder {
  /** Release the inference session; embed() rejects afterwards. */
  close(): Promise<void>;
}

let ortLoading: Promise<Ort> | undefined;

/** onnxruntime-web's wasm build, its binary handed in as bytes (bundle-friendly), one thread. */
export function loadOrt(): Promise<Ort> {
  ortLoading ??= (async () => {
    const ort = await import("onnxruntime-web/wasm");
    const binary = await import("onnxruntime-web/ort-wasm-simd-threaded.wasm", {
      with: { type: "bytes" },
    });
    ort.env.wasm.wasmBinary = binary.default;
    ort.env.wasm.numThreads = 1;
    ort.env.logLevel = "error";
    return ort;
  })();
  return ortLoading;
}

/** Load a model and its vocabulary; rejects with EmbeddingError naming the file and the cause. */
export async function loadOnnxEmbedder(options: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
  const { modelPath, vocabPath } = options;
  if (!modelPath || !vocabPath) {
    throw new EmbeddingError(
      "onnx",
      "unavailable",
      "No ONNX model is configured: set core.agent.embedding_onnx_model and core.agent.embedding_onnx_vocab",
    );
  }
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
  const model = await read(modelPath, Deno.readFile);
  const vocab = await read(vocabPath, Deno.readTextFile);
  const failed = (why: string, cause?: unknown) =>
    new EmbeddingError("onnx", "failed", `Cannot use ONNX model "${modelPath}": ${why}`, { cause });
  let tokenizer: WordPieceTokenizer;
  try {
    tokenizer = new WordPieceTokenizer(vocab, { lowercase: options.lowercase ?? true });
  } catch (error) {
    throw failed(errorMessage(error), error);
  }
  const ort = await loadOrt();
  let session: Session;
  try {
    session = await ort.InferenceSession.create(model, { executionProviders: ["wasm"] });
  } catch (error) {
    throw failed(errorMessage(error), error);
  }
  if (!session.inputNames.includes("input_ids")) {
    await session.release();
    throw failed(`it has no "input_ids" input (inputs: ${session.inputNames.join(", ")})`);
  }
  const runner = new Runner(ort, session, tokenizer, options.maxTokens ?? 256);
  const probe = await runner.run([""]).catch(async (error) => {
    await session.release();
    throw failed(errorMessage(error), error);
  });
  const dim = probe[0]!.length;
  const sha = (await sha256File(modelPath)).slice(0, 12);
  const name = basename(modelPath).replace(/\.onnx$/, "");
  options.logger.info("Loaded ONNX embedder", { modelPath, dim, vocabulary: tokenizer.size });
  const batchSize = options.batchSize ?? 16;
  let closed = false;
  return {
    fingerprint: formatFingerprint({ model: `onnx/${name}@${sha}`, version: "v1", dim }),
    dim,
    modalities: ["text"] as readonly Modality[],
    async embed(texts: readonly string[], opts: EmbedOptions = {}) {
      const out: Float32Array[] = [];
      for (let at = 0; at < texts.length; at += batchSize) {
        opts.signal?.throwIfAborted();
        if (closed) throw failed("the session is closed");
        out.push(
          ...await runner.run(texts.slice(at, at + batchSize)).catch((error) => {
            throw failed(errorMessage(error), error);
          }),
        );
      }
      return out;
    },
    async close() {
      if (closed) return;
      closed = true;
      await session.release();
    },
  };
}

/** Feeds batches through the session and pools the output. */
class Runner {
  constructor(
    readonly ort: Ort,
    readonly session: Session,
    readonly tokenizer: WordPieceTokenizer,
    readonly maxTokens: number,
  ) {}

  async run(texts: readonly string[]): Promise<Float32Array[]> {
    const { Tensor } = this.ort;
    const batch = this.tokenizer.encodeBatch(texts, this.maxTokens);
    const shape = [batch.batch, batch.length];
    const feeds: Record<string, Tensor> = { "input_ids": new Tensor("int64", batch.ids, shape) };
    const inputs = this.session.inputNames;
    if (inputs.includes("attention_mask")) {
      feeds["attention_mask"] = new Tensor("int64", batch.mask, shape);
    }
    if (inputs.includes("token_type_ids")) {
      feeds["token_type_ids"] = new Tensor("int64", batch.typeIds, shape);
    }
    const outputs = this.session.outputNames;
    const name = ["sentence_embedding", "last_hidden_state"].find((n) => outputs.includes(n)) ??
      outputs[0]!;
    const result = await this.session.run(feeds);
    const tensor = result[name]!;
    try {
      return pool(tensor.data as Float32Array, tensor.dims, batch.mask);
    } finally {
      for (const t of Object.values(result)) t.dispose();
    }
  }
}

/** `[batch, dim]` is taken as is; `[batch, seq, dim]` is mean-pooled over the mask. */
function pool(data: Float32Array, dims: readonly number[], mask: BigInt64Array): Float32Array[] {
  if (!(data instanceof Float32Array)) throw new TypeError("model output is not float32");
  const [batch = 0] = dims;
  if (dims.length === 2) {
    const dim = dims[1]!;
    return Array.from({ length: batch }, (_, b) => l2Normalize(data.slice(b * dim, (b + 1) * dim)));
  }
  if (dims.length !== 3) throw new TypeError(`output has shape [${dims.join(", ")}]`);
  const seq = dims[1]!, dim = dims[2]!;
  return Array.from({ length: batch }, (_, b) => {
    const out = new Float32Array(dim);
    let count = 0;
    for (let s = 0; s < seq; s++) {
      if (mask[b * seq + s] === 0n) continue;
      count++;
      const base = (b * seq + s) * dim;
      for (let d = 0; d < dim; d++) out[d]! += data[base + d]!;
    }
    if (count > 0) { for (let d = 0; d < dim; d++) out[d]! /= count; }
    return l2Normalize(out);
  });
}
