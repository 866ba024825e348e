/**
 * One ONNX sentence model, one thread: texts → WordPiece ids → session runs → pooled,
 * L2-normalised vectors. The session is native onnxruntime (onnxruntime-node's Node-API binding)
 * where it loads, else onnxruntime-web's wasm build (see loadEngine). Runs wherever it is
 * created: in the embedding Worker (`_onnx_worker.ts`) or, where no Worker can start, on the
 * caller's thread.
 * @module
 */
import { l2Normalize } from "./fingerprint.ts";
import type { Pooling } from "./model_catalog.ts";
import { type EncodedBatch, WordPieceTokenizer } from "./wordpiece.ts";

/** The onnxruntime-web wasm module (onnxruntime-node has the same API: onnxruntime-common). */
export type Ort = typeof import("onnxruntime-web/wasm");
/** Which onnxruntime runs a session. */
export type Engine = "native" | "wasm";
type Session = Awaited<ReturnType<Ort["InferenceSession"]["create"]>>;
type Tensor = InstanceType<Ort["Tensor"]>;

/** Everything a runner is built from; plain data, so it can be posted to a Worker. */
export interface RunnerSpec {
  /** The `.onnx` bytes. */
  model: Uint8Array;
  /** A `tokenizer.json` (HF format) or a `vocab.txt` with its casing. */
  tokenizer: { format: "json" | "vocab"; text: string; lowercase?: boolean };
  pooling: Pooling;
  /** Put before every text. */
  prefix: string;
  /** Tokens per text, [CLS] and [SEP] included. */
  maxTokens: number;
  /** Texts per session run. */
  batchSize: number;
  /** "wasm" keeps to onnxruntime-web; default "auto" (native where it loads). */
  engine?: Engine | "auto";
}

/** A loaded model. */
export interface Runner {
  readonly dim: number;
  readonly engine: Engine;
  /** Why the native engine was not used (auto, fell back to wasm). */
  readonly fallback?: string;
  /** One vector per text, in order. Rejects when the session fails. */
  run(texts: readonly string[]): Promise<Float32Array[]>;
  release(): Promise<void>;
}

/** Tokens (batch × padded length) per session run: long texts go in smaller batches. */
const TOKENS_PER_RUN = 8192;

/**
 * onnxruntime-web leaves the CPU arena and the memory pattern off (native onnxruntime has them
 * on): with them a query's ~130 kernels reuse planned buffers instead of a malloc and free
 * each, ~1–2 ms of a ~13 ms query on 2 cores; the vectors are the same. One intra-op thread:
 * the threaded build cannot start its pthreads from the wasm bundle in Deno, and with them (the
 * Node build) a query took 2–5× longer on a busy machine, the threads waiting on each other.
 */
const SESSION_OPTIONS = {
  executionProviders: ["wasm"],
  graphOptimizationLevel: "all",
  enableCpuMemArena: true,
  enableMemPattern: true,
} as const;

/**
 * Native: one intra-op thread as in wasm (the other core runs the daemon's recall meanwhile),
 * no inter-op pool, and so no spinning threads.
 */
const NATIVE_SESSION_OPTIONS = {
  executionProviders: ["cpu"],
  graphOptimizationLevel: "all",
  enableCpuMemArena: true,
  enableMemPattern: true,
  executionMode: "sequential",
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
} as const;

/** Short queries to warm a fresh session with (see warmUp). */
const WARM_TEXTS = [
  "我的猫叫什么名字？",
  "What did I tell you about my cat?",
  "明天下午三点提醒我开会",
];

/**
 * Run `runs` short queries through a fresh session, each only while `idle()` says no request
 * waits, yielding between them. V8 first runs wasm from its baseline compiler and moves hot
 * functions to the optimising one only as they run, so a fresh session's first ~30 queries
 * took up to 2× the CPU of later ones. ~0.5–1 s of the Worker's CPU after start; no more
 * memory (measured: RSS the same or lower, the baseline code is dropped).
 */
export async function warmUp(
  run: (texts: string[]) => Promise<unknown>,
  idle: () => boolean,
  runs = 24,
): Promise<void> {
  for (let i = 0; i < runs; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (idle()) await run([WARM_TEXTS[i % WARM_TEXTS.length]!]);
  }
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

/** A loaded onnxruntime: the native one, or wasm with why not native. */
export interface LoadedEngine {
  ort: Ort;
  engine: Engine;
  fallback?: string;
}

let nativeLoading: Promise<Ort> | undefined;

/**
 * Not a literal, so bundlers and `deno compile` leave it out (its binary is a 46 MB native
 * library per platform); run from the checkout, deno.json maps it.
 */
const NATIVE_PACKAGE: string = "onnxruntime-node";

/**
 * Native onnxruntime runs the int8 model in ~4–6 ms a query against 12–13 ms for the wasm
 * build, whose int8 kernels have no dot-product instruction (docs/benchmarks.md "the sentence
 * model"). It needs FFI permission and the package's binary for this platform; without either
 * (the CLI without --allow-ffi, a one-file bundle, another platform) the wasm build runs the
 * same model, and `fallback` says why.
 */
export async function loadEngine(prefer: RunnerSpec["engine"] = "auto"): Promise<LoadedEngine> {
  if (prefer === "wasm") return { ort: await loadOrt(), engine: "wasm" };
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") {
      throw new Error("no FFI permission (--allow-ffi)");
    }
    nativeLoading ??= import(NATIVE_PACKAGE).then((m: { default?: Ort } & Ort) => {
      const ort = m.default ?? m;
      ort.env.logLevel = "error";
      return ort;
    });
    return { ort: await nativeLoading, engine: "native" };
  } catch (error) {
    nativeLoading = undefined;
    if (prefer === "native") throw error;
    const fallback = error instanceof Error ? error.message : String(error);
    return { ort: await loadOrt(), engine: "wasm", fallback };
  }
}

/** Build the tokenizer a spec names; throws SyntaxError when it cannot be read. */
export function specTokenizer(spec: RunnerSpec["tokenizer"]): WordPieceTokenizer {
  return spec.format === "json"
    ? WordPieceTokenizer.fromTokenizerJson(spec.text)
    : new WordPieceTokenizer(spec.text, { lowercase: spec.lowercase ?? true });
}

/** Load the model and probe it once (the probe gives the dimension). Rejects with the cause. */
export async function createRunner(spec: RunnerSpec): Promise<Runner> {
  const tokenizer = specTokenizer(spec.tokenizer);
  const { ort, engine, fallback } = await loadEngine(spec.engine);
  const options = engine === "native" ? NATIVE_SESSION_OPTIONS : SESSION_OPTIONS;
  const session = await ort.InferenceSession.create(
    spec.model,
    options as Parameters<Ort["InferenceSession"]["create"]>[1],
  );
  try {
    if (!session.inputNames.includes("input_ids")) {
      throw new TypeError(`it has no "input_ids" input (inputs: ${session.inputNames.join(", ")})`);
    }
    const runner = new SessionRunner(ort, session, tokenizer, spec, engine, fallback);
    const [probe] = await runner.run([""]);
    runner.dim = probe!.length;
    return runner;
  } catch (error) {
    await session.release();
    throw error;
  }
}

class SessionRunner implements Runner {
  dim = 0;
  constructor(
    readonly ort: Ort,
    readonly session: Session,
    readonly tokenizer: WordPieceTokenizer,
    readonly spec: RunnerSpec,
    readonly engine: Engine,
    readonly fallback?: string,
  ) {}

  async run(texts: readonly string[]): Promise<Float32Array[]> {
    const { prefix, maxTokens, batchSize } = this.spec;
    const rows = texts.map((t) => this.tokenizer.encode(prefix + t, maxTokens));
    // Similar lengths together: less padding, so less work per run.
    const order = rows.map((_, i) => i).sort((a, b) => rows[a]!.length - rows[b]!.length);
    const out: Float32Array[] = new Array(texts.length);
    for (let at = 0; at < order.length;) {
      const longest = rows[order[Math.min(at + batchSize, order.length) - 1]!]!.length;
      const take = Math.max(1, Math.min(batchSize, Math.floor(TOKENS_PER_RUN / longest)));
      const chunk = order.slice(at, at + take);
      const vectors = await this.#runBatch(this.tokenizer.padBatch(chunk.map((i) => rows[i]!)));
      chunk.forEach((i, j) => out[i] = vectors[j]!);
      at += chunk.length;
    }
    return out;
  }

  release(): Promise<void> {
    return this.session.release();
  }

  async #runBatch(batch: EncodedBatch): Promise<Float32Array[]> {
    const { Tensor } = this.ort;
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
      return pool(tensor.data as Float32Array, tensor.dims, batch.mask, this.spec.pooling);
    } finally {
      for (const t of Object.values(result)) t.dispose();
    }
  }
}

/**
 * `[batch, dim]` is taken as is; `[batch, seq, dim]` gives the first ([CLS]) token's vector or
 * the mean over the attention mask. Every vector is L2-normalised.
 */
export function pool(
  data: Float32Array,
  dims: readonly number[],
  mask: BigInt64Array,
  pooling: Pooling,
): Float32Array[] {
  if (!(data instanceof Float32Array)) throw new TypeError("model output is not float32");
  const [batch = 0] = dims;
  if (dims.length === 2) {
    const dim = dims[1]!;
    return Array.from({ length: batch }, (_, b) => l2Normalize(data.slice(b * dim, (b + 1) * dim)));
  }
  if (dims.length !== 3) throw new TypeError(`output has shape [${dims.join(", ")}]`);
  const seq = dims[1]!, dim = dims[2]!;
  return Array.from({ length: batch }, (_, b) => {
    if (pooling === "cls") return l2Normalize(data.slice(b * seq * dim, (b * seq + 1) * dim));
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
