/** The embedding settings (`core.agent.embedding*`): zod-typed keys and their typed reading. */
import { z } from "zod";
import {
  type ConfigRegistry,
  defineFieldTable,
  type FieldSetting,
  readFieldTable,
} from "../../core/mod.ts";

/** Which vector space the daemon builds. */
export type EmbeddingKind = "hash" | "static" | "onnx" | "http" | "tfidf";

/** Every embedding setting, typed; `readEmbeddingConfig` fills it from the registry. */
export interface EmbeddingConfig {
  kind: EmbeddingKind;
  /** Buckets of the hash and TF-IDF spaces. */
  dim: number;
  /** Comma-separated `.vec` / Numberbatch paths or URLs (with optional `#sha256=…&size=…`). */
  modelPath: string;
  maxWords: number;
  /** An installed model (`<home>/memory/models/<name>`); wins over the two paths. */
  onnxName: string;
  onnxModel: string;
  onnxVocab: string;
  /** Run the model in a Worker, off the event loop. */
  onnxWorker: boolean;
  onnxMaxTokens: number;
  onnxLowercase: boolean;
  httpBaseUrl: string;
  httpModel: string;
  httpApiKey: string;
  /** 0 asks the server once at start. */
  httpDim: number;
  httpBatchSize: number;
  httpTimeoutMs: number;
}

const KINDS = ["hash", "static", "onnx", "http", "tfidf"] as const;

const httpUrl = z.lazy(() =>
  z.string().refine((v) => {
    if (v === "") return true;
    try {
      return ["http:", "https:"].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, "expected an http:// or https:// URL")
);

/** A row whose default the compiler checks against its own schema. */
interface Key<T> extends FieldSetting<EmbeddingConfig> {
  schema: z.ZodType<T> | (() => z.ZodType<T>);
  default: T;
}

const key = <T>(k: Key<T>): FieldSetting<EmbeddingConfig> => k;
const P = "core.agent.embedding";

const KEYS: readonly FieldSetting<EmbeddingConfig>[] = [
  key({
    field: "kind",
    key: P,
    schema: () => z.enum(KINDS),
    default: "hash",
    description: "Vector space: hash (default, no download), static, onnx, http or tfidf",
  }),
  key({
    field: "dim",
    key: `${P}_dim`,
    schema: () => z.int().min(8).max(8192),
    default: 512,
    description: "Dimensions of the hash and tfidf spaces",
  }),
  key({
    field: "modelPath",
    key: `${P}_model_path`,
    schema: () => z.string(),
    default: "",
    description:
      "Comma list of fastText .vec / Numberbatch files or URLs (URL#sha256=HEX&size=N), averaged when aligned",
  }),
  key({
    field: "maxWords",
    key: `${P}_max_words`,
    schema: () => z.int().min(1),
    default: 200_000,
    description: "Words read from each static vector file (files list frequent words first)",
  }),
  key({
    field: "onnxName",
    key: `${P}_onnx_name`,
    schema: () =>
      z.string().regex(
        /^$|^[a-z0-9][a-z0-9._-]{0,63}$/,
        "expected an installed model's name",
      ),
    default: "",
    description:
      "Installed model of the onnx space (`homeagent memory model install` sets it); empty: the two paths below",
  }),
  key({
    field: "onnxModel",
    key: `${P}_onnx_model`,
    schema: () => z.string(),
    default: "",
    description: "Path of an ONNX sentence model (BERT-like inputs)",
  }),
  key({
    field: "onnxVocab",
    key: `${P}_onnx_vocab`,
    schema: () => z.string(),
    default: "",
    description: "Path of the ONNX model's tokenizer.json or WordPiece vocab.txt",
  }),
  key({
    field: "onnxWorker",
    key: `${P}_onnx_worker`,
    schema: () => z.boolean(),
    default: true,
    description: "Run the ONNX model in a Worker so turns never wait on a batch being embedded",
  }),
  key({
    field: "onnxMaxTokens",
    key: `${P}_onnx_max_tokens`,
    schema: () => z.int().min(8).max(8192),
    default: 512,
    description:
      "Tokens per text fed to the ONNX model, [CLS] and [SEP] included (at most the model's own limit)",
  }),
  key({
    field: "onnxLowercase",
    key: `${P}_onnx_lowercase`,
    schema: () => z.boolean(),
    default: true,
    description: "Lower-case text for a vocab.txt tokenizer (a tokenizer.json says itself)",
  }),
  key({
    field: "httpBaseUrl",
    key: `${P}_http_base_url`,
    schema: () => httpUrl,
    default: "",
    description: "Base URL of an OpenAI-compatible embeddings API, e.g. http://127.0.0.1:11434/v1",
  }),
  key({
    field: "httpModel",
    key: `${P}_http_model`,
    schema: () => z.string(),
    default: "",
    description: "Embedding model requested from the HTTP endpoint",
  }),
  key({
    field: "httpApiKey",
    key: `${P}_http_api_key`,
    schema: () => z.string(),
    default: "",
    description: "API key of the embeddings endpoint; empty for local servers",
    secret: true,
  }),
  key({
    field: "httpDim",
    key: `${P}_http_dim`,
    schema: () => z.int().min(0),
    default: 0,
    description: "Dimension of the HTTP model; 0 asks the server at start",
  }),
  key({
    field: "httpBatchSize",
    key: `${P}_http_batch_size`,
    schema: () => z.int().min(1).max(2048),
    default: 64,
    description: "Texts per embeddings request",
  }),
  key({
    field: "httpTimeoutMs",
    key: `${P}_http_timeout_ms`,
    schema: () => z.int().min(1).max(600_000),
    default: 30_000,
    description: "Milliseconds one embeddings request may take",
  }),
];

/** Define the `core.agent.embedding*` keys (restart to apply). Throws TypeError when called twice. */
export function registerEmbeddingDefaults(registry: ConfigRegistry): void {
  defineFieldTable(registry, KEYS);
}

/** Read every embedding setting in effect from `registry` (keys must be registered). */
export function readEmbeddingConfig(registry: ConfigRegistry): EmbeddingConfig {
  return readFieldTable(registry, KEYS);
}
